#!/usr/bin/env bats
# Every command that writes a file, on a full disk and in a read-only folder:
# a clear error and a non-zero exit, the previous file untouched, no
# temporary file left (sbx record's own cases are in 40-record.bats).

load test_helper

setup_file() {
	command -v perf > /dev/null || return 0
	# a recording of a known workload with a binary with DWARF: what profgen and
	# jit-inject read
	"$SBX" record -q -e cpu-clock -F 2000 -o "$BATS_FILE_TMPDIR/in.data" -- \
		"$TOP/tests/workloads/noploop" 300 > /dev/null 2>&1 || true
}

setup() {
	[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
	require_perf_events
	[ -s "$BATS_FILE_TMPDIR/in.data" ] || { echo "the recording in setup_file failed"; return 1; }
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	if [ -f "$BATS_TEST_TMPDIR/.mounts" ]; then
		while read -r m; do umount "$m" 2> /dev/null; done < "$BATS_TEST_TMPDIR/.mounts"
		rm -f "$BATS_TEST_TMPDIR/.mounts"
	fi
}

# full: a tmpfs with a previous output "out" in it, then filled to the last page
full_fs() {
	mkdir -p full
	mount -t tmpfs -o size=256k tmpfs full || return 1
	echo "$PWD/full" >> "$BATS_TEST_TMPDIR/.mounts"
	echo old > full/out
	dd if=/dev/zero of=full/fill bs=4k 2> /dev/null || true
	! echo x > full/probe 2> /dev/null
	rm -f full/probe
}

# ro: a read-only tmpfs with a previous output "out" in it
ro_fs() {
	mkdir -p ro
	mount -t tmpfs -o size=64k tmpfs ro || return 1
	echo "$PWD/ro" >> "$BATS_TEST_TMPDIR/.mounts"
	echo old > ro/out
	mount -o remount,ro ro
}

# check_untouched DIR FILES...: the old output is there, and nothing else but FILES
check_untouched() {
	[ "$(cat "$1/out")" = old ]
	run -0 ls -A "$1"
	assert_output "$(printf '%s\n' "${@:2}" | sort)"
}

@test "sbx run --benchmarks-file on a full disk and in a read-only folder" {
	full_fs
	run -1 --separate-stderr sbx run --benchmarks-file full/out "$TOP/tests/data/snippets/add-chain.s"
	assert_regex "${stderr_lines[-1]}" "^sbx run: error: cannot write 'full/out': No space left on device$"
	check_untouched full fill out
	ro_fs
	run -1 --separate-stderr sbx run --benchmarks-file ro/out "$TOP/tests/data/snippets/add-chain.s"
	assert_regex "${stderr_lines[-1]}" "^sbx run: error: .*'ro/out': Read-only file system$"
	check_untouched ro out
}

@test "sbx profgen -o on a full disk and in a read-only folder, text and extbinary" {
	local bin=$TOP/tests/workloads/noploop
	full_fs
	for fmt in text extbinary; do
		run -1 --separate-stderr sbx profgen --binary "$bin" --format "$fmt" -o full/out \
			"$BATS_FILE_TMPDIR/in.data"
		assert_regex "${stderr_lines[-1]}" "^sbx profgen: error: .*No space left on device"
		check_untouched full fill out
	done
	ro_fs
	run -1 --separate-stderr sbx profgen --binary "$bin" -o ro/out "$BATS_FILE_TMPDIR/in.data"
	assert_regex "${stderr_lines[-1]}" "^sbx profgen: error: .*Read-only file system"
	check_untouched ro out
	# and the same command writes its profile where there is room
	run -0 sbx profgen --binary "$bin" -o ok.prof "$BATS_FILE_TMPDIR/in.data"
	grep -q '^hot_a:' ok.prof
}

@test "sbx jit-inject -o on a full disk and in a read-only folder" {
	full_fs
	run -1 --separate-stderr sbx jit-inject -q -i "$BATS_FILE_TMPDIR/in.data" -o full/out
	assert_regex "${stderr_lines[-1]}" "^sbx jit-inject: error: .*No space left on device"
	check_untouched full fill out
	ro_fs
	run -1 --separate-stderr sbx jit-inject -q -i "$BATS_FILE_TMPDIR/in.data" -o ro/out
	assert_regex "${stderr_lines[-1]}" "^sbx jit-inject: error: .*Read-only file system"
	check_untouched ro out
	run -0 sbx jit-inject -q -i "$BATS_FILE_TMPDIR/in.data" -o ok.data
	perf report -i ok.data --stdio > /dev/null 2>&1
}

@test "sbx jit-inject: an image that cannot be written (a full disk, a read-only folder) is an error, not a warning" {
	mkdir j
	SBX_JIT_DIR=$PWD/j sbx record -q -o j.data -- "$TOP/tests/workloads/tinyjit" -i 20 > /dev/null 2>&1
	full_fs
	run -1 --separate-stderr sbx jit-inject -q -i j.data -o out.data --jit-dir full
	assert_regex "${stderr_lines[-1]}" "^sbx jit-inject: error: .*jit-[0-9]+\.so.*No space left on device"
	[ ! -e out.data ]
	check_untouched full fill out
	ro_fs
	run -1 --separate-stderr sbx jit-inject -q -i j.data -o out.data --jit-dir ro
	assert_regex "${stderr_lines[-1]}" "^sbx jit-inject: error: .*Read-only file system"
	[ ! -e out.data ]
	check_untouched ro out
}
