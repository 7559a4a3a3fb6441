#!/bin/sh
# fleetsim.sh B [--quick] - the modelled day of fleet host standby
# (bench_fleetsim): the table on stdout, and under B/bench/fleetsim/
# table.md, results.csv, day-100.csv and, where gnuplot is installed
# (scripts/deps.sh --kernel), day-100.svg: hosts on over the day under
# each policy, with the fleet's demand.
set -e
B=${1:-build}
OUT=$B/bench/fleetsim
mkdir -p "$OUT"
"$B/bench/bench_fleetsim" "$OUT" ${2:-}
if command -v gnuplot >/dev/null; then
	gnuplot <<GP
set terminal svg size 900,450 dynamic font "sans,11"
set output "$OUT/day-100.svg"
set datafile separator ","
set title "100 hosts, one modelled day: hosts on (left) and demand (right)"
set xlabel "hour"
set ylabel "hosts on"
set y2label "demand, CPUs"
set ytics nomirror
set y2tics
set key outside below horizontal
set yrange [0:105]
set xrange [0:24]
set xtics 3
plot "$OUT/day-100.csv" every ::1 using (\$1/60):3 with lines title "none", \
     "" every ::1 using (\$1/60):4 with lines lw 2 title "vcpack", \
     "" every ::1 using (\$1/60):5 with lines lc rgb "#56b4e9" title "DPM-like", \
     "" every ::1 using (\$1/60):6 with lines title "first fit", \
     "" every ::1 using (\$1/60):2 axes x1y2 with lines lc "gray" title "demand"
GP
	echo "fleetsim.sh: plot in $OUT/day-100.svg"
else
	echo "fleetsim.sh: gnuplot is missing: no plot (scripts/deps.sh --kernel)" >&2
fi
