#!/bin/sh
# test-man-coverage.sh BUILD_DIR - the man pages document every key the
# file parsers accept and every command vcpack dispatches (issues 14 and
# 16), read from the source so that a new key or command without its
# documentation fails here:
# - each key of the fleet file (fleetcfg.c, standbycfg.c) is named, as
#   *KEY*, in its section of vcpack-fleet.5.scd (a host's keys under
#   KEYS OF EACH HOST, and so on); each key of the policy file (policy.c)
#   under KEYS of vcpack-policy.5.scd. A key is what a parser compares
#   a JSON object's key with: strcmp(key, "NAME") (or dkey), and
#   json_object_object_get_ex(OBJ, "NAME"). Every function there that
#   refuses an "unknown key" must give at least one such key, and every
#   function that gives keys must be in the section map below: a parser
#   rewritten another way (a table of names, say) fails here rather than
#   leaving the check empty. A key starting with "_" (the ignored
#   "_comment") is looked for as *\_KEY* (scdoc's escape) in DESCRIPTION,
#   which says where it is accepted.
# - each vcpack command (cli.c's commands[] table, the ones main
#   compares argv[0] with, and those `vcpack help` lists) is in the
#   SYNOPSIS and in COMMANDS of vcpack.1.md; each `vcpack fleet` command
#   (the ones cli-fleet.c compares its cmd with, and those `vcpack fleet
#   --help` lists) is in a **fleet** line of the SYNOPSIS and begins a
#   **fleet COMMAND** entry in COMMANDS.
# - each powernice option (powernice.c's opts[] but the tests' --root,
#   and its --help's) is an entry under OPTIONS of powernice.1.scd, and
#   each exit status it defines an entry under EXIT STATUS.
# - each option the usage and option lines of a program's --help name
#   (vcpack's, its commands' and fleet's; vcpackd's; powernice's;
#   scx_vcpack's usage text, read from its source) is in its page's
#   SYNOPSIS or OPTIONS; and a SYNOPSIS that does not stand for them with
#   [OPTIONS] names each option line (one of its names) itself.
# - each page has an EXAMPLES section, not empty.
# - host-agent/man holds only scdoc and pandoc sources (issue 16: no roff
#   written by hand), and each page built into BUILD_DIR/man has one.
# Not checked, deliberately (files no man page describes key by key;
# each checked in the code): fleetjson.c (the fleet snapshots of the
# unit tests and benchmarks: its "options" and "policy" keys are no
# fleet file's), fleetsaved.c (reads back the plan `fleet plan --save`
# wrote), standbystate.c (the fleet loop's --state file), modeljson.c
# (the model JSON of the tests' fixtures and of --json). Neither are the
# values of keys ("auto", "on", "respect", "none", "intel", day names:
# compared with s or a table, not with a key) nor the keys of
# "priorities" (high, normal, low: tag priorities, model.c's table by
# vcp_priority_from_name, named in vcpack-policy(5)'s priorities entry).
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_setup
SRC=$top/host-agent/src
MAN=$top/host-agent/man

# keys_of FILE: "FILE FUNCTION KEY", a line for each key FILE compares a
# JSON object key with (FUNCTION: the C function it is in)
keys_of() {
	awk -v f="$(basename "$1")" '
	/^[a-z].*[a-z0-9_]\(/ && !/;$/ {
		fn = $0; sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn) }
	{
		s = $0
		while (match(s, /strcmp\([a-z]*key, "[^"]*"\)|json_object_object_get_ex\([a-z_]+, "[^"]*"/)) {
			m = substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
			sub(/^[^"]*"/, "", m); sub(/".*/, "", m)
			print f, fn, m
		}
	}' "$1"
}

# refusers_of FILE: "FILE FUNCTION" for each function of FILE that
# refuses an unknown key
refusers_of() {
	awk -v f="$(basename "$1")" '
	/^[a-z].*[a-z0-9_]\(/ && !/;$/ {
		fn = $0; sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn) }
	fn != "" && /"[^"]*unknown key/ { print f, fn }' "$1" | sort -u
}

# section PAGE HEADING: the lines of PAGE's "# HEADING" section
section() {
	awk -v h="# $2" '$0 == h { on = 1; next } /^# / { on = 0 } on' "$1"
}

# section_of FILE FUNCTION: the fleet or policy page section whose keys
# FUNCTION parses ("" when the map does not know it)
section_of() {
	case "$1 $2" in
	"fleetcfg.c parse_obj" | "standbycfg.c vcp_sb_cfg_parse_fleet")
		echo "TOP-LEVEL KEYS" ;;
	"fleetcfg.c host_key") echo "KEYS OF EACH HOST" ;;
	"fleetcfg.c default_key") echo "KEYS OF DEFAULTS" ;;
	"standbycfg.c policy_key" | "standbycfg.c parse_hosts" | \
	"standbycfg.c host_key") echo "STANDBY KEYS" ;;
	"policy.c parse_key" | "policy.c parse_window") echo "KEYS" ;;
	*) echo "" ;;
	esac
}

# check_keys PAGE SOURCE...: each key of the SOURCEs (FOLDER/FILE under
# host-agent/src) named in its section of PAGE
check_keys() {
	page=$1
	shift
	for s; do
		keys_of "$SRC/$s"
	done | sort -u >"$T_TMP/keys"
	for s; do
		refusers_of "$SRC/$s" >>"$T_TMP/refusers"
	done
	n=$(wc -l <"$T_TMP/keys")
	if [ "$n" -ge 10 ]; then t_pass "$*: $n keys found in the source"
	else t_fail "$*: only $n keys found in the source: does keys_of still read the parsers?"; fi
	missing=""
	while read -r f fn key; do
		sec=$(section_of "$f" "$fn")
		if [ -z "$sec" ]; then
			t_fail "$f: $fn() compares key \"$key\", and this test does not know which section of $(basename "$page") documents its keys (section_of)"
			continue
		fi
		case $key in
		_*) sec=DESCRIPTION; doc="*\\$key*" ;;
		*) doc="*$key*" ;;
		esac
		if ! section "$page" "$sec" | grep -qF -- "$doc"; then
			t_fail "$(basename "$page"): key \"$key\" ($f $fn) is not documented under $sec"
			missing="$missing $key"
		fi
	done <"$T_TMP/keys"
	cat "$T_TMP/keys" >>"$T_TMP/allkeys"
	[ -z "$missing" ] && t_pass "$(basename "$page"): all $n keys of $* documented"
}

: >"$T_TMP/refusers"
: >"$T_TMP/allkeys"
check_keys "$MAN/vcpack-fleet.5.scd" fleet/fleetcfg.c fleet/standbycfg.c
check_keys "$MAN/vcpack-policy.5.scd" plan/policy.c
# a parser that refuses unknown keys must give its keys to keys_of
while read -r f fn; do
	if grep -q "^$f $fn " "$T_TMP/allkeys"; then
		t_pass "$f: $fn() refuses unknown keys, and its keys are read"
	else
		t_fail "$f: $fn() refuses unknown keys but compares none as strcmp(key, \"NAME\"): this test no longer sees its keys"
	fi
done <"$T_TMP/refusers"

# ---- commands ----
P1=$MAN/vcpack.1.md

"$B/vcpack" help >"$T_TMP/help" 2>&1
t_eq "vcpack help: exit 0" 0 $?
"$B/vcpack" fleet --help >"$T_TMP/fleet-help" 2>&1
t_eq "vcpack fleet --help: exit 0" 0 $?
# the vcpack commands: cli.c's table, main's own, and vcpack help's
{
	awk '/^} commands\[\] = \{/ { on = 1; next } on && /^};/ { on = 0 }
		on' "$SRC/programs/cli.c" | grep -o '{ "[a-z-]*"' | cut -d'"' -f2
	grep -o 'strcmp(argv\[0\], "[a-z-]*")' "$SRC/programs/cli.c" | cut -d'"' -f2
	awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 }
		on && /^  [a-z]/ { print $1; if ($2 == "|") print $3 }' \
		"$T_TMP/help"
} | sort -u >"$T_TMP/cmds"
# vcpack fleet's: those cli-fleet.c compares its command with, and its
# --help's (lines "  COMMAND ...")
{
	grep -oE 'strcmp\((cmd|argv\[optind\]), "[a-z-]*")' "$SRC/programs/cli-fleet.c" |
		cut -d'"' -f2
	awk '/^  [a-z]/ { print $1 }' "$T_TMP/fleet-help"
} | sort -u >"$T_TMP/fleet"
n=$(wc -l <"$T_TMP/cmds")
if [ "$n" -ge 12 ]; then t_pass "$n vcpack commands found"
else t_fail "only $n vcpack commands found: $(tr '\n' ' ' <"$T_TMP/cmds")"; fi
n=$(wc -l <"$T_TMP/fleet")
if [ "$n" -ge 6 ]; then t_pass "$n vcpack fleet commands found"
else t_fail "only $n vcpack fleet commands found: $(tr '\n' ' ' <"$T_TMP/fleet")"; fi

# check_cmds LIST WHO SYN ENTRY: each command C of the file LIST is
# **C** in a SYNOPSIS line with SYN in it, and in a line of COMMANDS that
# matches ENTRY (grep -E, @ for C); WHO + C is how messages name it
check_cmds() {
	missing=""
	while read -r c; do
		if ! grep -F -- "$3" "$T_TMP/synopsis" | grep -qF -- "**$c**"; then
			t_fail "vcpack.1.md: '$2$c' is not in SYNOPSIS"
			missing="$missing $c"
		fi
		if ! grep -qE -- "$(echo "$4" | sed "s/@/$c/")" "$T_TMP/commands"; then
			t_fail "vcpack.1.md: '$2$c' is not described under COMMANDS"
			missing="$missing $c"
		fi
	done <"$1"
	[ -z "$missing" ] &&
		t_pass "vcpack.1.md: every ${2% } command documented: $(tr '\n' ' ' <"$1")"
}

section "$P1" SYNOPSIS >"$T_TMP/synopsis"
section "$P1" COMMANDS >"$T_TMP/commands"
check_cmds "$T_TMP/cmds" "vcpack " "**vcpack**" '\*\*@(\*\*| )'
check_cmds "$T_TMP/fleet" "vcpack fleet " "**fleet**" '^\*\*fleet @(\*\*| )'

# ---- powernice (issue 16) ----
# each option of powernice.c's opts[] (but those marked "tests") and of
# its --help is an entry "*-X*, *--NAME*" under OPTIONS of
# powernice.1.scd, and each exit status (0 and powernice.c's EXIT_*) an
# entry "*N*" under EXIT STATUS
PN=$MAN/powernice.1.scd
"$B/powernice" --help >"$T_TMP/pn-help" 2>&1
t_eq "powernice --help: exit 0" 0 $?
{
	awk '/opts\[\] = \{/ { on = 1; next } on && /\};/ { on = 0 }
		on && !/tests/' "$SRC/programs/powernice.c" |
		sed -n "s/.*{ \"\([a-z-]*\)\", [a-z_]*, NULL, '\(.\)' }.*/\2 \1/p"
	sed -n 's/^  -\(.\), --\([a-z-]*\).*/\1 \2/p' "$T_TMP/pn-help"
} | sort -u >"$T_TMP/pn-opts"
n=$(wc -l <"$T_TMP/pn-opts")
if [ "$n" -ge 3 ]; then t_pass "$n powernice options found"
else t_fail "only $n powernice options found: $(tr '\n' ' ' <"$T_TMP/pn-opts")"; fi
section "$PN" OPTIONS >"$T_TMP/pn-options"
missing=""
while read -r short long; do
	if ! grep -qF -- "*-$short*, *--$long*" "$T_TMP/pn-options"; then
		t_fail "powernice.1.scd: -$short, --$long is not under OPTIONS"
		missing="$missing --$long"
	fi
done <"$T_TMP/pn-opts"
[ -z "$missing" ] &&
	t_pass "powernice.1.scd: every option documented: $(cut -d' ' -f2 "$T_TMP/pn-opts" | tr '\n' ' ')"
{
	echo 0
	sed -n 's/^#define EXIT_[A-Z_]* \([0-9]*\)$/\1/p' "$SRC/programs/powernice.c"
} | sort -n >"$T_TMP/pn-exits"
t_eq "powernice.c: its exit statuses" "0 1 2 126 127" \
	"$(tr '\n' ' ' <"$T_TMP/pn-exits" | sed 's/ $//')"
section "$PN" "EXIT STATUS" >"$T_TMP/pn-status"
missing=""
while read -r code; do
	grep -qx -- "\*$code\*" "$T_TMP/pn-status" || missing="$missing $code"
done <"$T_TMP/pn-exits"
t_eq "powernice.1.scd: an EXIT STATUS entry for each status" "" "$missing"

# ---- every option of each program's --help in its page; EXAMPLES ----
# help_opts HELP...: the options (-x, --long) of the usage and option
# lines of a --help text (not those its prose mentions: "vcpackd
# --metrics-dir writes the same")
help_opts() {
	awk '/^(Usage|usage):/ || /^ +\[/ || /^ +-/ || /^  [a-z][a-z|-]* / ||
		/^       %s /' "$@" |
		grep -oE -- '(^|[ ,[|(])--?[a-zA-Z][a-z0-9-]*' | sed 's/^[^-]*//' |
		sort -u
}
# help_entries HELP...: the option lines, one name a word ("-c --connect")
help_entries() {
	awk '/^ +-/ { l = $0; sub(/^ */, "", l); sub(/   .*/, "", l); print l }' "$@" |
		while read -r l; do
			printf '%s\n' "$l" | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-z0-9-]*' |
				sed 's/^[ ,]*//' | paste -sd' ' -
		done
}
has_opt() { # FILE OPTION: OPTION as a word of FILE (scdoc *-x*, md **-x**)
	grep -qE -- "(^|[^a-zA-Z0-9-])$2([^a-zA-Z0-9-]|$)" "$1"
}
# check_opts PAGE HELP...: each option of the HELP texts is in PAGE's
# SYNOPSIS or OPTIONS; and unless the SYNOPSIS stands for them with
# [OPTIONS], each option line has one of its names in the SYNOPSIS
check_opts() {
	page=$1
	pn=$(basename "$page")
	shift
	section "$page" SYNOPSIS >"$T_TMP/o-syn"
	{ cat "$T_TMP/o-syn"; section "$page" OPTIONS; } >"$T_TMP/o-both"
	help_opts "$@" >"$T_TMP/o-opts"
	n=$(wc -l <"$T_TMP/o-opts")
	if [ "$n" -ge 3 ]; then t_pass "$pn: $n options in its program's --help"
	else t_fail "$pn: only $n options found in its program's --help"; fi
	missing=""
	while read -r o; do
		has_opt "$T_TMP/o-both" "$o" || missing="$missing $o"
	done <"$T_TMP/o-opts"
	t_eq "$pn: every --help option in SYNOPSIS or OPTIONS" "" "$missing"
	grep -q 'OPTIONS' "$T_TMP/o-syn" && return
	missing=""
	help_entries "$@" >"$T_TMP/o-ent"
	while read -r names; do
		found=""
		for o in $names; do
			has_opt "$T_TMP/o-syn" "$o" && found=1
		done
		[ -n "$found" ] || missing="$missing ${names%% *}"
	done <"$T_TMP/o-ent"
	t_eq "$pn: every --help option line in the SYNOPSIS" "" "$missing"
}
"$B/vcpack" fleet --help >"$T_TMP/h-fleet" 2>&1
for c in $(cat "$T_TMP/cmds"); do
	case $c in fleet | help) continue ;; esac
	"$B/vcpack" help "$c"
done >"$T_TMP/h-cmds" 2>&1
"$B/vcpack" --help >"$T_TMP/h-vcpack" 2>&1
check_opts "$P1" "$T_TMP/h-vcpack" "$T_TMP/h-fleet" "$T_TMP/h-cmds"
"$B/vcpackd" --help >"$T_TMP/h-vcpackd" 2>&1
check_opts "$MAN/vcpackd.8.scd" "$T_TMP/h-vcpackd"
check_opts "$PN" "$T_TMP/pn-help"
# scx_vcpack is built by make scx only: its usage text from the source
sed -n '/usage_fmt\[\] =/,/;$/p' "$top/kernel/scx/scx_vcpack.c" |
	sed -n 's/^"\(.*\)\\n"$/\1/p' >"$T_TMP/h-scx"
check_opts "$MAN/scx_vcpack.8.scd" "$T_TMP/h-scx"
# each page has an EXAMPLES section with at least one example in it
for page in "$MAN"/*.scd "$MAN"/*.md; do
	n=$(section "$page" EXAMPLES | grep -c '[a-z]')
	if [ "$n" -ge 2 ]; then t_pass "$(basename "$page"): EXAMPLES ($n lines)"
	else t_fail "$(basename "$page"): no EXAMPLES section (or an empty one)"; fi
done

# ---- every page built from its source (issue 16) ----
t_eq "host-agent/man: sources for scdoc and pandoc only, no roff by hand" "" \
	"$(ls "$MAN" | grep -vE '\.(scd|md)$' | tr '\n' ' ')"
for m in "$B"/man/*; do
	[ -e "$m" ] || continue
	b=$(basename "$m")
	case $b in *.tmp) continue ;; esac
	if [ -e "$MAN/$b.scd" ] || [ -e "$MAN/$b.md" ]; then
		t_pass "built $b has its source"
	else
		t_fail "built $b has no $b.scd or $b.md in host-agent/man"
	fi
done
t_done
