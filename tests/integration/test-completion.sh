#!/bin/sh
# test-completion.sh BUILD_DIR - the bash completion as `make install`
# puts it (PREFIX=/opt/vcp, a DESTDIR; bash-completion's completionsdir
# under PREFIX), sourced in a bash with bash-completion loaded; its
# functions are called with COMP_WORDS/COMP_LINE as readline sets them:
# commands, global options before and after the command, a command's
# options, levels, priorities, classes, modes, fleet's commands, DOMAIN
# names from `vcpack list --name` on the --connect URI of the line (the
# shipped two-package test-driver host; for tag also the shut-off domains
# of list-all.xml), list's options, powernice's classes and then commands.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_setup
TWO="test://$top/tests/data/hosts/two-pkg.xml"
BC=/usr/share/bash-completion/bash_completion
if [ ! -r "$BC" ]; then
	t_fail "bash-completion is not installed (scripts/deps.sh installs it)"
	t_done; exit 1
fi
D=$T_TMP/root
make -s -C "$top" B="$B" install PREFIX=/opt/vcp DESTDIR="$D" >/dev/null 2>&1
t_eq "make install: exit 0" 0 $?
C=$D/opt/vcp/share/bash-completion/completions
t_eq "installed where bash-completion looks under PREFIX" \
	"$(pkg-config --define-variable=datadir=/opt/vcp/share --variable=completionsdir bash-completion)/vcpack" \
	"${C#"$D"}/vcpack"
t_eq "powernice's completion is the same file" vcpack "$(readlink "$C/powernice")"

# comp PROG WORD... : the completions of the last WORD, sorted, one line
comp() {
	bash --norc --noprofile -c '
		. "$1"; . "$2"; shift 2
		fn=$1; shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="${COMP_WORDS[*]}"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		$fn 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}" | sed "/^$/d" | sort | tr "\n" " " | sed "s/ $//"
	' comp "$BC" "$C/vcpack" "$@"
}
V=$B/vcpack
t_eq "commands" "apply disable enable explain fleet help level list metrics pause plan policy reload restore resume status tag trial verify" \
	"$(comp _vcpack "$V" "")"
t_eq "a command's start" "status" "$(comp _vcpack "$V" st)"
t_eq "global options" "--connect" "$(comp _vcpack "$V" --con)"
t_eq "--mode's values" "auto kernel pin scx" "$(comp _vcpack "$V" --mode "")"
t_eq "status: --watch and --wide" "--watch --wide" "$(comp _vcpack "$V" status --w)"
t_eq "plan --exit-code" "--exit-code" "$(comp _vcpack "$V" plan --ex)"
t_eq "levels" "0 1 2 auto policy" "$(comp _vcpack "$V" level "")"
t_eq "level takes one word" "" "$(comp _vcpack "$V" level 2 "")"
t_eq "help: the commands" "pause plan policy" "$(comp _vcpack "$V" help p)"
t_eq "DOMAIN names from vcpack list on the line's --connect URI" \
	"badvalue batch latency normal1 pinned untagged" \
	"$(comp _vcpack "$V" --connect "$TWO" tag "")"
t_eq "DOMAIN with its start" "latency" "$(comp _vcpack "$V" --connect "$TWO" explain la)"
t_eq "--connect after the command" "normal1" "$(comp _vcpack "$V" explain --connect "$TWO" no)"
t_eq "--connect=URI" "pinned" "$(comp _vcpack "$V" "--connect=$TWO" restore badvalue pi)"
t_eq "restore: several DOMAINs" "batch badvalue" \
	"$(comp _vcpack "$V" --connect "$TWO" restore latency ba | tr ' ' '\n' | sort -r | tr '\n' ' ' | sed 's/ $//')"
OFF="test://$top/tests/data/hosts/list-all.xml"
t_eq "tag: shut-off domains too (list --all)" "app batch-off db-off plain-off typo-off web" \
	"$(comp _vcpack "$V" --connect "$OFF" tag "")"
t_eq "explain: running domains only" "app web" "$(comp _vcpack "$V" --connect "$OFF" explain "")"
t_eq "restore: running domains only" "app web" "$(comp _vcpack "$V" --connect "$OFF" restore "")"
t_eq "list: --all" "--all" "$(comp _vcpack "$V" list --a)"
t_eq "list: --inactive" "--inactive" "$(comp _vcpack "$V" list --all --in)"
t_eq "list: --name" "--name" "$(comp _vcpack "$V" list --na)"
t_eq "tag: priorities" "high low normal" "$(comp _vcpack "$V" tag web --priority "")"
t_eq "tag: classes" "balanced pack spread unmanaged" "$(comp _vcpack "$V" tag web --class "")"
t_eq "tag: its options" "--class --connect" "$(comp _vcpack "$V" tag web --c)"
t_eq "fleet: its commands" "plan" "$(comp _vcpack "$V" fleet --hosts f.json pl)"
t_eq "fleet apply: its options" "--yes" "$(comp _vcpack "$V" fleet apply --y)"
t_eq "fleet apply: --migration-timeout" "--migration-timeout" "$(comp _vcpack "$V" fleet apply --mig)"
t_eq "fleet: run and clear" "clear" "$(comp _vcpack "$V" fleet --hosts f.json cl)"
t_eq "fleet run: its options" "--interval" "$(comp _vcpack "$V" fleet run --int)"
t_eq "no domains without an answer" "" "$(comp _vcpack "$V" --connect "test:///$T_TMP/nonesuch.xml" tag "")"
t_eq "powernice: classes" "balanced pack spread" "$(comp _powernice powernice "")"
t_eq "powernice: options" "--help --pid --version" "$(comp _powernice powernice --)"
t_match "powernice CLASS: then a command" "(^| )printf( |$)" "$(comp _powernice powernice pack printf)"
t_done
