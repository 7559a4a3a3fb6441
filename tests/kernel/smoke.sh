# smoke: the testbed itself works (topology, cgroups, vcwork output).
. /scenarios/lib.sh
np=$(cat /sys/devices/system/cpu/cpu*/topology/physical_package_id | sort -u | wc -l)
vcp_run smoke --duration 3 --warmup 1 --vm name=a,threads=2,duty=100 \
	--vm name=b,threads=2,duty=30,burst=5ms
jsel smoke start pkgs | grep -qx "$np" && [ "$(jsel smoke end failed_vms)" = 0 ] &&
	[ "$(jsel smoke thread samples | wc -l)" = 4 ] &&
	vcp_pass smoke "packages=$np busy=$(pkg_summary smoke)" ||
	vcp_fail smoke "packages=$np vcwork output incomplete"
