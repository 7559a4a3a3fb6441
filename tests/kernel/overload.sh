# overload: more packable load than one package holds spills over to the
# second package at once, and comes back when the load drops, without
# bouncing. Level 1 on 2x4: VM a = 3 steady `pack` threads for the whole
# run; VM b = 3 more from t=4 s to t=9 s (6 busy tasks > 4 CPUs).
# Slots are 1 s of guest time; slot 0..1 is the warm-up.
. /scenarios/lib.sh

vcp_need_knobs overload-spill overload-return overload-no-bounce || exit 0
vcp_set_level 1
vcp_run overload --warmup 2 --duration 11 \
	--vm name=a,threads=3,class=pack,duty=100 \
	--vm name=b,threads=3,class=pack,duty=100,start=4s,stop=9s
vcp_set_level 0
vcp_check_run overload || exit 0

# spill: while b runs (slots 5..8), both packages carry load.
during=$(vcp_slot_busy 5 8 /tmp/overload.out)
low=$(echo "$during" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i < m) m = $i; print m }')
if [ "$low" -ge 25 ]; then
	vcp_pass overload-spill "6 pack tasks use both packages: busy% $during (slots 5-8)"
else
	vcp_fail overload-spill "6 pack tasks did not spill: busy% $during (slots 5-8)"
fi
# return: two seconds after b stopped (slots 11..12), one package idle again.
after=$(vcp_slot_busy 11 12 /tmp/overload.out)
idle=$(echo "$after" | awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i < 10) n++; print n }')
if [ "$idle" -ge 1 ]; then
	vcp_pass overload-return "load came back to one package: busy% $after (slots 11-12)"
else
	vcp_fail overload-return "still spread after the load dropped: busy% $after (slots 11-12)"
fi
# no bouncing: VM a's threads change package at most twice each (out at
# the spill, back at the return), b's at most once each.
ma=$(thread_sum overload pkg_migrations a)
mb=$(thread_sum overload pkg_migrations b)
if [ "$ma" -le 6 ] && [ "$mb" -le 3 ]; then
	vcp_pass overload-no-bounce "package migrations: a=$ma (<= 6) b=$mb (<= 3)"
else
	vcp_fail overload-no-bounce "tasks bounce between packages: a=$ma (want <= 6) b=$mb (want <= 3); timelines: $(jsel overload thread timeline | tr '\n' ' '); package moves (ms:from>to): $(jsel overload thread pkg_moves | tr '\n' '|')"
fi
