#!/bin/sh
# test-make.sh BUILD_DIR - the Makefile's own promises: make check
# installs the kernel-side packages first, and format-check passes on a
# tree whose changed lines are kernel style and fails, showing the fix,
# on one whose are not, a moved file's old lines not judged again, and
# format-fix rewrites what format-check shows (in a scratch git
# repository holding the Makefile, .clang-format and two sources).
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_setup

# make check installs the kernel-side packages first (make deps-kernel;
# MAKE=echo: what it would run, nothing installed), and deps-kernel asks
# deps.sh for them
MAKE=echo sh "$top/scripts/check.sh" "$T_TMP/b" >/dev/null 2>&1
t_eq "make check runs deps-kernel first" "--no-print-directory deps-kernel" \
	"$(cat "$T_TMP/b/log/deps.log" 2>/dev/null)"
t_match "deps-kernel installs the kernel-side packages" \
	"deps.sh --check --kernel" "$(make -n -C "$top" deps-kernel 2>&1)"

if ! command -v clang-format-diff >/dev/null 2>&1; then
	echo "# clang-format-diff missing: format-check not tested"
	t_done; exit $?
fi
r=$T_TMP/repo
mkdir -p "$r/host-agent/src/kernel"
cp "$top/Makefile" "$top/.clang-format" "$r/"
cp "$top/host-agent/src/kernel/sysfile.c" "$top/host-agent/src/kernel/sysfile.h" \
	"$r/host-agent/src/kernel/"
G() { git -C "$r" -c user.name=t -c user.email=t@t "$@"; }
G init -q && G add -A && G commit -qm base
out=$(make -s -C "$r" format-check FORMAT_BASE=HEAD 2>&1)
t_eq "format-check: clean tree passes" 0 $?
printf 'int vcp_ugly(int a){ return  a;}\n' >>"$r/host-agent/src/kernel/sysfile.c"
out=$(make -s -C "$r" format-check FORMAT_BASE=HEAD 2>&1)
t_eq "format-check: a badly formatted change fails" 2 $?
t_match "format-check: shows the fix" "^\+int vcp_ugly\(int a\)$" "$out"
G commit -qam ugly
out=$(make -s -C "$r" format-check FORMAT_BASE=HEAD~1 2>&1)
t_eq "format-check: a committed bad change since the base fails" 2 $?
printf 'int vcp_fine(int a)\n{\n\treturn a;\n}\n' >"$r/host-agent/src/kernel/fine.c"
G add -A && G commit -qm fine
out=$(make -s -C "$r" format-check FORMAT_BASE=HEAD~1 2>&1)
t_eq "format-check: only lines since the base are judged" 0 $?
# a file moved to another folder is not new: its old lines are not
# judged again (git diff -M), only what the move changed
mkdir -p "$r/host-agent/src/moved"
G mv host-agent/src/kernel/sysfile.c host-agent/src/moved/sysfile.c
G commit -qm moved
out=$(make -s -C "$r" format-check FORMAT_BASE=HEAD~1 2>&1)
t_eq "format-check: a moved file's old lines are not judged" 0 $?
printf 'int vcp_ugly2(int a){ return  a;}\n' >>"$r/host-agent/src/moved/sysfile.c"
out=$(make -s -C "$r" format-check FORMAT_BASE=HEAD~1 2>&1)
t_match "format-check: a moved file's changed lines are" \
	"^\+int vcp_ugly2\(int a\)$" "$out"
make -s -C "$r" format-fix FORMAT_BASE=HEAD~1 >/dev/null 2>&1
out=$(make -s -C "$r" format-check FORMAT_BASE=HEAD~1 2>&1)
t_eq "format-fix: rewrites the changed lines" 0 $?
t_match "format-fix: the line rewritten" "^int vcp_ugly2\(int a\)$" \
	"$(cat "$r/host-agent/src/moved/sysfile.c")"
t_match "format-fix: older lines left" "^int vcp_ugly\(int a\)\{ return  a;\}$" \
	"$(cat "$r/host-agent/src/moved/sysfile.c")"

t_done
