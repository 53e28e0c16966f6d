#!/usr/bin/env bash
# Runs the C unit tests and the bats suites, all in TAP, and ends with one
# line `N passed, N failed, N skipped`. Exits 1 when anything failed.
# B is the build folder of the unit tests (make check sets it); SUITES, the
# bats files to run (default tests/*.bats).
#
# Every skip is printed with its reason. Under CI=true a skip counts as a
# failure unless the machine lacks (or has) a hardware capability: reasons
# that start with "hardware: " (skip_hw in tests/test_helper.bash). A test
# must not turn green by skipping over a broken set-up.
set -u
cd "$(dirname "$0")/.."
B=${B:-build/default}
export B
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
pass=0 fail=0 skip=0

tally() {	# $1: a TAP file; $2: the exit status of what wrote it; $3: its name
	local p f s planned seen line refused=0
	p=$(grep -cE '^ok [0-9]+' "$1")
	s=$(grep -cE '^ok [0-9]+.*# ?[Ss][Kk][Ii][Pp]' "$1")
	f=$(grep -cE '^not ok [0-9]+' "$1")
	planned=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$1" | head -n 1)
	seen=$((p + f))
	# a crash or an early exit shows as fewer results than planned
	if [ -n "$planned" ] && [ "$seen" -lt "$planned" ]; then
		echo "not ok - $3: ran $seen of $planned tests (exit status $2)"
		f=$((f + planned - seen))
	elif [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $3: exited with status $2 and no failed test"
		f=$((f + 1))
	fi
	# every skip with its reason; under CI only a missing hardware capability
	while IFS= read -r line; do
		echo "$line"
		if [ "${CI:-}" = true ] && [[ ! $line =~ \#\ ?[Ss][Kk][Ii][Pp]\ hardware:\  ]]; then
			echo "not ok - $3: skipped under CI=true for a reason other than hardware"
			refused=$((refused + 1))
		fi
	done < <(grep -E '^ok [0-9]+.*# ?[Ss][Kk][Ii][Pp]' "$1")
	pass=$((pass + p - s)) fail=$((fail + f + refused)) skip=$((skip + s - refused))
}

for t in "$B"/tests/unit/test-*; do
	[ -x "$t" ] || continue
	name=${t##*/}
	echo "# unit: $name"
	"$t" > "$log/$name.tap" 2> "$log/$name.err"
	rc=$?
	grep -E '^(not ok|#)' "$log/$name.tap"
	[ "$rc" -ne 0 ] && cat "$log/$name.err"
	tally "$log/$name.tap" "$rc" "$name"
done

for t in ${SUITES:-tests/*.bats}; do
	name=${t##*/}
	echo "# bats: $name"
	bats --tap "$t" > "$log/$name.tap" 2>&1
	rc=$?
	grep -vE '^ok ' "$log/$name.tap" | grep -vE '^1\.\.'
	tally "$log/$name.tap" "$rc" "$name"
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
