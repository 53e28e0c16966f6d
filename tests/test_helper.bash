# Shared set-up of the bats suites: `load test_helper` at the top of each file.
# SBX names the binary under test (default: the tree's ./sbx).
bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
SBX=${SBX:-$TOP/sbx}
DATA=$TOP/tests/data
# the build folder of the binary under test (tests/run-all.sh exports B:
# build/default, or build/san under SANITIZE=1); its test tools and examples
case ${B:-build/default} in
/*) BUILD=$B ;;
*) BUILD=$TOP/${B:-build/default} ;;
esac
WORKLOADS=$TOP/tests/workloads

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load

sbx() {
	"$SBX" "$@"
}

# Skip for a hardware capability this machine lacks (or has, for the test of
# the fallback): the one kind of skip that CI accepts (tests/run-all.sh).
skip_hw() {
	skip "hardware: $*"
}

# Skip with a stated reason unless perf_event_open works for this user.
require_perf_events() {
	local p
	p=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 99)
	[ "$(id -u)" -eq 0 ] || [ "$p" -le 1 ] ||
		skip "perf_event_paranoid is $p: perf events are not allowed for this user"
}

# Skip with a stated reason when the machine has no hardware PMU.
require_hw_pmu() {
	command -v perf >/dev/null || skip "perf is not installed"
	perf stat -e instructions -x, true 2>&1 | grep -q 'not supported' &&
		skip_hw "no PMU on this machine (instructions: not supported)"
	return 0
}

# gone PATTERN: within 5 s no running process has a command line matching
# PATTERN (pgrep -f; a zombie has none, so only live ones count)
gone() {
	for _ in $(seq 100); do
		pgrep -f "$1" > /dev/null || return 0
		sleep 0.05
	done
	echo "still running: $(pgrep -af "$1")"
	return 1
}

# the cgroup v2 mount point (where sbx makes sbx-PID), or nothing
cgroup2_mount() {
	findmnt -n -t cgroup2 -o TARGET | head -1
}

# stderr_lines without sbx run's warnings that a snippet's TSC calibration
# drifted: a loaded machine gives them now and then, and they are not what a
# test of the errors asserts
drop_drift_warnings() {
	local kept=() l
	for l in "${stderr_lines[@]}"; do
		[[ $l == "sbx run: warning: "*": the TSC calibration drifted by "* ]] || kept+=("$l")
	done
	stderr_lines=("${kept[@]}")
}
