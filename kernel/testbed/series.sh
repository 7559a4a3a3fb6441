# series.sh - sourced by patch-tree.sh and matrix.sh: reading a patch
# series (DIR/series, one patch name a line, '#' comments). The caller
# defines die().

# The patches listed in DIR/series, one path a line (comments and blanks
# skipped); dies naming a listed patch that does not exist.
list_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$1/series" | while read -r p rest; do
		[ -n "$p" ] || continue
		[ -f "$1/$p" ] || die "'$p' listed in $1/series does not exist"
		echo "$1/$p"
	done
}

# Files a set of patches touches, relative to the tree root (-p1).
touched_files() {
	for p in "$@"; do
		awk '/^(\+\+\+|---) / {
			f = $2; sub(/\t.*/, "", f)
			if (f == "/dev/null") next
			sub(/^[^\/]*\//, "", f); print f
		}' "$p"
	done | sort -u
}
