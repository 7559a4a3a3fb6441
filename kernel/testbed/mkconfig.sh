#!/bin/sh
# mkconfig.sh SRCTREE OBJDIR FRAGMENT [FRAGMENT...]
#
# Makes OBJDIR/.config = tinyconfig + the FRAGMENTs in order (merge_config.sh
# -m; a later fragment wins) + olddefconfig, then checks that every CONFIG_
# line of the merged fragments (the last word on each option) survived
# olddefconfig (a dependency that is not met silently drops an option):
# any lost option is listed and the script fails, leaving .config as it
# was. OBJDIR/.config is replaced only when the new one differs, so kbuild
# does not rebuild anything for an unchanged result; OBJDIR/.vcpack-config
# is touched as make's stamp.
set -eu

src=$1
obj=$2
shift 2
new=$obj/.config.vcpack-new
frag=$obj/.config.vcpack-frag

mkdir -p "$obj"
# the merged fragment: for each option, the last fragment's line
cat "$@" | grep -E '^(# )?CONFIG_' | awk '
	{ o = $0; sub(/^# /, "", o); sub(/[= ].*/, "", o)
	  if (!(o in line)) order[n++] = o; line[o] = $0 }
	END { for (i = 0; i < n; i++) print line[order[i]] }' >"$frag"
make -s -C "$src" O="$obj" KCONFIG_CONFIG="$new" tinyconfig >/dev/null
KCONFIG_CONFIG="$new" sh "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
	"$new" "$frag" >/dev/null
make -s -C "$src" O="$obj" KCONFIG_CONFIG="$new" olddefconfig >/dev/null

lost=0
grep -E '^(# )?CONFIG_' "$frag" | while read -r line; do
	case $line in
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		if grep -q "^$opt=" "$new"; then
			echo "mkconfig: $opt is set but the fragments disable it" >&2
			echo x
		fi ;;
	CONFIG_*)
		if ! grep -qx "$line" "$new"; then
			opt=${line%%=*}
			got=$(grep -E "^$opt=|^# $opt is not set" "$new" || true)
			echo "mkconfig: the fragments want '$line', olddefconfig gave '${got:-nothing}'" >&2
			echo x
		fi ;;
	esac
done >"$new.lost"
lost=$(wc -l <"$new.lost")
rm -f "$new.lost"
if [ "$lost" -ne 0 ]; then
	echo "mkconfig: $lost option(s) of $* did not stick in $obj (dependencies?)" >&2
	rm -f "$new" "$frag"
	exit 1
fi
if cmp -s "$new" "$obj/.config"; then
	rm -f "$new"
else
	mv -f "$new" "$obj/.config"
	echo "mkconfig: wrote $obj/.config" >&2
fi
touch "$obj/.vcpack-config"
