# bench/kernel/progress.sh - the progress line run.sh prints on stderr
# after each guest boot ends (sourced; pure: no I/O but the line printed,
# so tests/bench/run.sh checks it on given inputs).

# dur_text SECONDS -> "41 s", "2 min 05 s", "1 h 03 min"
dur_text() {
	if [ "$1" -lt 60 ]; then
		echo "$1 s"
	elif [ "$1" -lt 3600 ]; then
		printf '%d min %02d s\n' $(($1 / 60)) $(($1 % 60))
	else
		printf '%d h %02d min\n' $(($1 / 3600)) $(($1 % 3600 / 60))
	fi
}

# left_text SECONDS -> "about 40 s left", "about 12 min left" (to the
# nearest minute), "about 1 h 05 min left"
left_text() {
	if [ "$1" -lt 60 ]; then
		echo "about $1 s left"
	else
		_m=$((($1 + 30) / 60))
		if [ $_m -lt 60 ]; then
			echo "about $_m min left"
		else
			printf 'about %d h %02d min left\n' $((_m / 60)) $((_m % 60))
		fi
	fi
}

# progress_line K N ELAPSED PARALLEL RC LABEL [SECONDS...]
# K of N boots have ended, the K-th (LABEL) with exit status RC; ELAPSED
# seconds since the first started; SECONDS: how long each of the K took.
# The estimate: the mean of SECONDS times the boots left, over the boots
# that run at once (PARALLEL, or fewer when fewer are left). K = 0: the
# line before the first boot ends.
progress_line() {
	_k=$1 _n=$2 _el=$3 _par=$4 _rc=$5 _lab=$6
	shift 6
	if [ "$_k" = 0 ]; then
		echo "bench-kernel: $_n runs (guest boots), $_par at a time; estimate after the first run"
		return
	fi
	_sum=0 _last=0
	for _d in "$@"; do _sum=$((_sum + _d)) _last=$_d; done
	_left=$((_n - _k))
	if [ $_left = 0 ]; then
		_est="all $_n done"
	else
		[ "$_par" -le $_left ] || _par=$_left
		# mean * left / parallel, to the nearest second
		_est=$(left_text $(((2 * _sum * _left + _k * _par) / (2 * _k * _par))))
	fi
	_what="done"
	[ "$_rc" = 0 ] || _what="failed with exit $_rc"
	echo "bench-kernel: run $_k/$_n $_what ($_lab): $(dur_text "$_last"); elapsed $(dur_text "$_el"), $_est"
}
