#!/bin/sh
# test-watch.sh BUILD_DIR - `vcpack status --watch [SECONDS]` on the
# shipped two-package test-driver host: in a tmux session of its own
# (private socket, its server stopped by pid) the pane shows one frame
# drawn from the top, refreshed in place (cursor home and clear to end of
# line and of screen, the screen blanked only once at the start), q and
# Ctrl-C end it with exit 0 and the terminal's settings put back; not on
# a terminal it prints successive plain snapshots and stops on SIGINT.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
TWO="test://$top/tests/data/hosts/two-pkg.xml"
t_setup

# ---- bad arguments: exit 2, named ----
out=$("$VCPACK" --connect "$TWO" status --watch 0 2>&1)
t_eq "--watch 0: exit 2" 2 $?
t_match "--watch 0 named" "--watch '0' is not a number of seconds" "$out"
out=$("$VCPACK" --connect "$TWO" status --watch 1 extra 2>&1)
t_eq "--watch 1 extra: exit 2" 2 $?

# ---- not a terminal: plain successive snapshots ----
"$VCPACK" --connect "$TWO" --sample 0 status --watch 0.2 >"$T_TMP/plain.out" 2>&1 &
pid=$!
T_PIDS="$T_PIDS $pid"
i=0
snaps() { n=$(grep -c '^---- vcpack status at ' "$T_TMP/plain.out" 2>/dev/null); echo "${n:-0}"; }
while [ "$(snaps)" -lt 3 ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -INT $pid
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 $pid 2>/dev/null
wait $pid
t_eq "not a tty: SIGINT ends it with exit 0" 0 $?
n=$(grep -c '^---- vcpack status at ' "$T_TMP/plain.out")
if [ "$n" -ge 3 ]; then t_pass "not a tty: $n snapshots"; else t_fail "not a tty: $n snapshots, wanted 3 or more"; fi
t_eq "not a tty: one map per snapshot" "$n" "$(grep -c '2 of 2 packages awake' "$T_TMP/plain.out")"
t_eq "not a tty: no escape sequences" 0 "$(grep -c "$(printf '\033')" "$T_TMP/plain.out")"
t_eq "not a tty: the bad tag in the frame, not repeated on stderr" "$n" \
	"$(grep -c "badvalue" "$T_TMP/plain.out" | awk -v n="$n" '{ print $1 - 2 * n }')"

# ---- a terminal: tmux, 100x40 ----
SOCK=$T_TMP/tmux.sock
TM() { tmux -S "$SOCK" "$@"; }
# (the shell outlives Ctrl-C, which goes to the whole foreground group)
cat >"$T_TMP/run.sh" <<SH
#!/bin/sh
trap : INT
# (not before the pane's output is piped to the stream file: its first
# frame's escapes would be missed)
while [ ! -e "$T_TMP/go" ]; do sleep 0.05; done
"$VCPACK" --connect "$TWO" --sample 0 status --watch 0.5
echo "EXITED=\$?"
stty -a | tr ' ;' '\n\n' | grep -x -e '-*icanon' -e '-*echo'
sleep 600
SH
chmod +x "$T_TMP/run.sh"
if ! command -v tmux >/dev/null; then
	t_fail "tmux is not installed (scripts/deps.sh installs it)"
	t_done; exit 1
fi
TM -f /dev/null new-session -d -s w -x 100 -y 40 "sh $T_TMP/run.sh"
T_PIDS="$T_PIDS $(TM display-message -p '#{pid}')"
TM pipe-pane -t w -o "cat >>$T_TMP/stream"
i=0	# (tmux starts the cat: the file is there once it runs)
while [ ! -e "$T_TMP/stream" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
: >"$T_TMP/go"
pane() { TM capture-pane -p -t w; }
wait_pane() { # PATTERN
	i=0
	until pane | grep -Eq -- "$1"; do
		i=$((i + 1)); [ $i -gt 100 ] && return 1; sleep 0.1
	done
}
wait_pane '^Every 0.5s: vcpack status' || t_fail "no frame in the pane"
wait_pane '2 of 2 packages awake'
p1=$(pane)
t_match "tty: the first line is the title" '^Every 0.5s: vcpack status +[0-9-]+ [0-9:]+ +\(q quits\)' \
	"$(echo "$p1" | head -n 1)"
t_match "tty: the frame's second line is the host" '^host: +vm ' "$(echo "$p1" | sed -n 2p)"
t_match "tty: the VM table" '^  pinned +pack +class +2 ' "$p1"
sleep 1.6
p2=$(pane)
t_eq "tty: redrawn in place (one title line after 3 refreshes)" 1 \
	"$(echo "$p2" | grep -c '^Every 0.5s')"
t_eq "tty: one map after 3 refreshes" 1 "$(echo "$p2" | grep -c 'packages awake')"
t_eq "tty: same number of lines as the first frame" \
	"$(echo "$p1" | grep -c .)" "$(echo "$p2" | grep -c .)"
TM send-keys -t w q
wait_pane '^-?echo$' || true
p3=$(pane)
t_match "tty: q ends it with exit 0" '^EXITED=0$' "$p3"
t_eq "tty: the terminal's settings back (icanon echo)" "icanon echo" \
	"$(echo "$p3" | sed -n '/^EXITED=/,$p' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\n' ' ' | sed 's/ $//')"
E=$(printf '\033')
# (the stream is read once the program ended: frames = every "clear
# below", each after a "cursor home"; one more home with the first clear)
frames=$(grep -o "${E}\[J" "$T_TMP/stream" | wc -l)
if [ "$frames" -ge 3 ]; then t_pass "tty: $frames frames, each clearing what is below it"
else t_fail "tty: $frames frames, wanted 3 or more"; fi
t_eq "tty: the screen blanked once only (no flicker)" 1 \
	"$(grep -o "${E}\[2J" "$T_TMP/stream" | wc -l)"
t_eq "tty: every frame drawn from the cursor's home" "$((frames + 1))" \
	"$(grep -o "${E}\[H" "$T_TMP/stream" | wc -l)"
t_eq "tty: cursor hidden while it runs" 1 "$(grep -o "${E}\[?25l" "$T_TMP/stream" | wc -l)"
t_eq "tty: cursor shown again" 1 "$(grep -o "${E}\[?25h" "$T_TMP/stream" | wc -l)"

# Ctrl-C
W=$(TM new-window -P -F '#{window_id}' -t w "sh $T_TMP/run.sh")
i=0
until TM capture-pane -p -t $W | grep -q 'packages awake'; do
	i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
done
TM send-keys -t $W C-c
i=0
until TM capture-pane -p -t $W | grep -q '^EXITED='; do
	i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
done
t_match "tty: Ctrl-C ends it with exit 0" '^EXITED=0$' "$(TM capture-pane -p -t $W)"
TM kill-server 2>/dev/null
t_done
