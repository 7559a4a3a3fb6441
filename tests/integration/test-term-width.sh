#!/bin/sh
# test-term-width.sh BUILD_DIR - text that fits the terminal, on the
# demo host (host-agent/demo/host.xml, libvirt's test driver). status and
# plan (and fleet status over that host) at 80 and 200 columns, set by
# COLUMNS through a pipe and by the terminal's own width in tmux: every
# line within the width, and no word cut: the words, in order, are those
# of the same command at 200 columns and without COLUMNS through a pipe
# (the fixed 100 columns, unchanged), and in tmux the text is that of
# COLUMNS=WIDTH with no line wrapped by the terminal. apply, verify,
# restore, list, explain and tag at 60 and 80 columns; trial's lines at
# 80, a number kept with its unit. status --watch in tmux lays each
# frame out for the window's width and redraws at once when the window
# is resized. Every line of --help of vcpack (each command's too, vcpack
# fleet's and its commands'), vcpackd, powernice and the hook's usage is
# within 80 columns. --json and --wide are the same at every width.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
U="test://$top/host-agent/demo/host.xml"
t_setup

V() { "$VCPACK" --connect "$U" --sample 0 "$@" 2>/dev/null; }
# the lines of TEXT over WIDTH characters
over() { printf '%s\n' "$2" | awk -v w="$1" 'length($0) > w' | wc -l; }
# TEXT's words, one a line (whitespace, folding, does not count)
words() { printf '%s\n' "$1" | tr -s ' \n' '\n\n' | sed '/^$/d'; }
fits() { # WHAT WIDTH TEXT
	n=$(over "$2" "$3")
	if [ "$n" -eq 0 ]; then t_pass "$1: every line within $2 columns"
	else t_fail "$1: $n of $(printf '%s\n' "$3" | wc -l) lines over $2 columns:"
		printf '%s\n' "$3" | awk -v w="$2" 'length($0) > w' | sed 's/^/    /'; fi
}
same_words() { # WHAT TEXT1 TEXT2
	words "$2" >"$T_TMP/w1"
	words "$3" >"$T_TMP/w2"
	if cmp -s "$T_TMP/w1" "$T_TMP/w2"; then t_pass "$1"
	else t_fail "$1:"; diff "$T_TMP/w1" "$T_TMP/w2" | head -n 20 | sed 's/^/    /'; fi
}

# ---- through a pipe: COLUMNS ----
for cmd in status plan; do
	fixed=$(V $cmd)
	t_eq "$cmd: exit 0" 0 $?
	fits "$cmd, no COLUMNS (a pipe: the fixed width)" 100 "$fixed"
	wide=$(COLUMNS=200 V $cmd)
	fits "$cmd, COLUMNS=200" 200 "$wide"
	for w in 80 200; do
		out=$(COLUMNS=$w V $cmd)
		fits "$cmd, COLUMNS=$w" $w "$out"
		same_words "$cmd, COLUMNS=$w: no word cut (the words of 200 columns)" \
			"$wide" "$out"
		same_words "$cmd, COLUMNS=$w: the words of the fixed 100" \
			"$fixed" "$out"
	done
	t_eq "$cmd, COLUMNS=200: a line longer than 100 (the width is used)" 1 \
		"$(printf '%s\n' "$wide" | awk 'length($0) > 100 { n = 1 } END { print n + 0 }')"
	# (the test driver makes up each VM's UUID anew each time)
	t_eq "$cmd --json: the same with COLUMNS=80" \
		"$(V --json $cmd | grep -v '"uuid":')" \
		"$(COLUMNS=80 V --json $cmd | grep -v '"uuid":')"
	t_eq "$cmd --wide: the same with COLUMNS=80" "$(V --wide $cmd)" \
		"$(COLUMNS=80 V --wide $cmd)"
done
# the other commands that print text, at 60 (the minimum) and 80
# (explain's UUIDs, made up anew by the test driver each time, left out)
nouuid() { printf '%s\n' "$1" | sed -E 's/[0-9a-f]{8}-[0-9a-f-]{27}/UUID/'; }
for cmd in apply verify restore list "list --all" "explain web" \
	"explain legacy" "tag app --class pack"; do
	wide=$(nouuid "$(COLUMNS=200 V $cmd)")
	for w in 60 80; do
		out=$(nouuid "$(COLUMNS=$w V $cmd)")
		fits "$cmd, COLUMNS=$w" $w "$out"
		same_words "$cmd, COLUMNS=$w: no word cut" "$wide" "$out"
	done
done
st=$(COLUMNS=80 V status)
t_match "status, 80: the mode line folded under its text" \
	"^mode: +pin .* to tune, so$" "$st"
t_match "status, 80: a package's VM names wrapped under its names" \
	"^ {50}legacy, web$" "$st"
t_eq "COLUMNS=20: the minimum, 60" 0 "$(over 60 "$(COLUMNS=20 V plan)")"
t_eq "COLUMNS=abc: not a width, the fixed 100" "$(V status)" \
	"$(COLUMNS=abc V status)"

cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [{"uri": "$U", "name": "h1"}]}
JSON
F() { "$VCPACK" fleet --hosts "$T_TMP/fleet.json" --sample 0 "$@" 2>/dev/null; }
fw=$(COLUMNS=200 F status)
t_eq "fleet status, 200: exit 0" 0 $?
fits "fleet status, COLUMNS=200" 200 "$fw"
t_match "fleet status, 200: the class column's full heading" \
	"^  HOST +MODE .* spread/balanced/pack/untouched SAVED\(W\)$" "$fw"
out=$(COLUMNS=80 F status)
fits "fleet status, COLUMNS=80" 80 "$out"
# (below 91 columns the class column is headed spr/bal/pack/unt)
same_words "fleet status, COLUMNS=80: no word cut" \
	"$(printf '%s\n' "$fw" | sed 's,spread/balanced/pack/untouched,spr/bal/pack/unt,')" \
	"$out"
t_match "fleet status, 80: the table's rows whole, the class column narrower" \
	"^  h1 +pin +2 +2 +0 +6  1/2/2/1 +0$" "$out"
t_match "fleet status, 80: its heading" \
	"^  HOST +MODE .* spr/bal/pack/unt SAVED\(W\)$" "$out"

# trial's lines as it goes and its report (a power fixture read with the
# real clock, the level 2 plan against the demo host as found)
PW=$T_TMP/pw
cp -r "$top/tests/data/power/intel-2s/t0" "$PW" &&
	rm -f "$PW/vcpack-counters/clock_ns"
echo '{"level": 2}' >"$T_TMP/level2.json"
tr=$(COLUMNS=80 V --policy "$T_TMP/level2.json" --power-root "$PW" trial \
	--rounds 2 --window 0.5 --settle 0 --sample 0.1 --state "$T_TMP/tr.json")
t_eq "trial, COLUMNS=80: exit 0" 0 $?
fits "trial, COLUMNS=80" 80 "$tr"
t_match "trial, 80: its first line folded under its text" \
	"^ {7}first; about 2 s$" "$(printf '%s\n' "$tr" | sed -n 2p)"
t_match "trial, 80: a window's line folded, its rest indented by 4" \
	"^    [a-z0-9]" "$(printf '%s\n' "$tr" | sed -n '/^window 1\/5/,/^window 2/p')"
t_nomatch "trial, 80: a number never apart from its unit" "^ *(s|W)[,;]? " "$tr"

# ---- a terminal: tmux 80 and 200 columns wide, COLUMNS unset ----
if ! command -v tmux >/dev/null; then
	t_fail "tmux is not installed (scripts/deps.sh installs it)"
	t_done; exit 1
fi
SOCK=$T_TMP/tmux.sock
TM() { tmux -S "$SOCK" "$@"; }
# (after the command, the marker; the pane stays until the server stops)
cat >"$T_TMP/run.sh" <<SH
#!/bin/sh
unset COLUMNS
"$VCPACK" --connect "$U" --sample 0 "\$@"
echo "__END__ \$?"
sleep 600
SH
wait_end() { # WINDOW
	i=0
	until TM capture-pane -p -t "$1" | grep -q '^__END__'; do
		i=$((i + 1)); [ $i -gt 150 ] && return 1; sleep 0.1
	done
}
# a session that holds the server (its pid stopped at the end); each run
# in a session of its own, as wide as asked from its start
TM -f /dev/null new-session -d -s hold -x 80 -y 24 "sleep 600"
T_PIDS="$T_PIDS $(TM display-message -p -t hold '#{pid}')"
n=0
tty_run() { # WIDTH ARGS...: the pane's text, COLUMNS unset
	w=$1; shift
	n=$((n + 1))
	TM new-session -d -s "r$n" -x "$w" -y 120 "sh $T_TMP/run.sh $*"
	wait_end "r$n" || t_fail "tty $w: $* did not end"
	# -J: lines the terminal wrapped joined again
	TM capture-pane -p -t "r$n" | sed '/^__END__/,$d' >"$T_TMP/pane"
	TM capture-pane -p -J -t "r$n" | sed '/^__END__/,$d' >"$T_TMP/panej"
	TM kill-session -t "r$n" 2>/dev/null
}
for w in 80 200; do
	for cmd in status plan; do
		# (stderr on the terminal too: nothing there in text mode, the
		# bad tag is said once, in the report's issue line)
		tty_run $w $cmd
		pane=$(cat "$T_TMP/pane")
		t_match "tty $w: $cmd ran" "packages awake" "$pane"
		t_eq "tty $w: $cmd: no line wrapped by the terminal" \
			"$(wc -l <"$T_TMP/pane")" "$(wc -l <"$T_TMP/panej")"
		fits "tty $w: $cmd" $w "$pane"
		# the pane: stdout alone, as COLUMNS=$w lays it out
		piped=$(COLUMNS=$w V $cmd | sed 's/ *$//')
		t_eq "tty $w: $cmd: the text of COLUMNS=$w" \
			"$piped" "$(sed -e 's/ *$//' -e '/./,$!d' "$T_TMP/pane" |
				sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')"
		t_match "tty $w: $cmd: the report's first line first (no warning on stderr)" \
			"^host:   " "$(head -n 1 "$T_TMP/pane")"
		same_words "tty $w: $cmd: no word cut" \
			"$(COLUMNS=200 "$VCPACK" --connect "$U" --sample 0 $cmd 2>&1)" \
			"$pane"
	done
done

# ---- status --watch: each frame at the window's width, resized ----
# (every 30 s: a frame within seconds of a resize is SIGWINCH's redraw)
TM new-session -d -s watch -x 80 -y 60 \
	"$VCPACK --connect $U --sample 0 status --watch 30"
frame_is() { # WIDTH: the frame's lines after the title are status at WIDTH - 1
	want=$(COLUMNS=$(($1 - 1)) V status | sed 's/ *$//' | sed '/^$/d')
	i=0
	while [ $i -lt 60 ]; do
		got=$(TM capture-pane -p -t watch | sed 1d | sed '/^$/d')
		[ "$got" = "$want" ] && return 0
		i=$((i + 1)); sleep 0.1
	done
	printf '%s\n' "$got" | sed 's/^/    /'
	return 1
}
if frame_is 80; then t_pass "watch, 80 columns: the frame laid out for 79, whole"
else t_fail "watch, 80 columns: the frame is not status at 79 columns"; fi
TM resize-window -t watch -x 200 -y 60
if frame_is 200; then t_pass "watch, resized to 200: redrawn at once, laid out for 199"
else t_fail "watch, resized to 200: the frame is not status at 199 columns"; fi
TM resize-window -t watch -x 70 -y 60
if frame_is 70; then t_pass "watch, resized to 70: redrawn at once, laid out for 69"
else t_fail "watch, resized to 70: the frame is not status at 69 columns"; fi
TM send-keys -t watch q
TM kill-server 2>/dev/null

# ---- --help within 80 columns ----
help_fits() { # WHAT TEXT
	if [ -z "$2" ]; then t_fail "$1: no text"; return; fi
	fits "$1" 80 "$2"
}
help_fits "vcpack --help" "$("$VCPACK" --help)"
cmds=$("$VCPACK" --help | sed -n '/^Commands:/,/^$/p' |
	awk '/^  [a-z]/ { print $1 }')
t_match "vcpack --help lists the commands" "^status$" "$cmds"
for c in $cmds resume; do
	help_fits "vcpack $c --help" "$("$VCPACK" $c --help 2>&1)"
	help_fits "vcpack help $c" "$("$VCPACK" help $c 2>&1)"
done
fcmds=$("$VCPACK" fleet --help | awk '/^  [a-z]+ / { print $1 }')
t_match "vcpack fleet --help lists its commands" "^status$" "$fcmds"
for c in $fcmds; do
	help_fits "vcpack fleet $c --help" \
		"$("$VCPACK" fleet --hosts "$T_TMP/fleet.json" $c --help 2>&1)"
done
help_fits "vcpackd --help" "$("$B/vcpackd" --help 2>&1)"
help_fits "powernice --help" "$("$B/powernice" --help 2>&1)"
# (its usage names argv[0]: short here, as libvirtd's qemu.d/vcpack is)
help_fits "the hook's usage" "$(cd "$B" && ./vcpack-hook 2>&1)"
t_done
