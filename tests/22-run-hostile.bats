#!/usr/bin/env bats
# sbx run against hostile snippets: a snippet is code that runs in the
# measuring child, and what that process writes is input the parent checks.
# Nothing a snippet does reaches sbx run, another snippet, or outlives sbx.

load test_helper

SN=$TOP/tests/data/snippets

# A snippet from tests/data/snippets/NAME.c, compiled to assembly here.
snippet_from_c() {
	gcc -O1 -S -fno-asynchronous-unwind-tables -fno-stack-protector -fcf-protection=none \
		-o "$BATS_TEST_TMPDIR/$1.s" "$SN/$1.c"
}

@test "a snippet that writes over the child's report: a per-snippet error, never a crash of sbx run" {
	# under seccomp: the page above its context page, where the report used to be,
	# is a guard page now
	run -1 --separate-stderr sbx run "$SN/forge-next-page.s"
	assert_output ''
	assert_regex "$stderr" "^sbx run: error: $SN/forge-next-page.s: SIGSEGV at address 0x[0-9a-f]+, snippet\+0x[0-9a-f]+: movl \\\$1, \(%rbx\)$"
	# with system calls: it finds the report's pages through /proc/self/maps, writes
	# "done" and a counter index out of range, and exits 0
	snippet_from_c forge-report
	run -1 --separate-stderr sbx run --allow-syscalls "$BATS_TEST_TMPDIR/forge-report.s"
	assert_equal "$stderr" "sbx run: error: $BATS_TEST_TMPDIR/forge-report.s: the snippet wrote over sbx's report in its process (multiplexed = 2147483647); its figures cannot be trusted"
	# in a batch, the other snippets are measured
	run -1 --separate-stderr sbx run --allow-syscalls --format json "$SN/add-chain.s" \
		"$BATS_TEST_TMPDIR/forge-report.s" "$SN/imul-chain.s"
	assert_equal "${#lines[@]}" 3
	assert_regex "${lines[0]}" '"value":'
	assert_regex "${lines[1]}" '"error":"[^"]*forge-report.s: the snippet wrote over sbx'"'"'s report'
	assert_regex "${lines[2]}" '"value":'
}

@test "a hostile document in an llvm-exegesis YAML sweep is that document's error; the sweep goes on" {
	as -o "$BATS_TEST_TMPDIR/f.o" "$SN/forge-next-page.s"
	objcopy -O binary -j .text "$BATS_TEST_TMPDIR/f.o" "$BATS_TEST_TMPDIR/f.bin"
	local hex
	hex=$(od -An -v -tx1 "$BATS_TEST_TMPDIR/f.bin" | tr -d ' \n' | tr a-f A-F)
	{
		sed -n '/^---/,/^\.\.\./p' "$TOP/tests/data/exegesis/snippets.yaml" | sed -n '1,/^\.\.\./p'
		printf -- '---\nmode: latency\nkey:\n  instructions:\n    - FORGE\n  config: %s\n' "''"
		printf '  register_initial_values: []\nmin_instructions: 10000\nassembled_snippet: %s%sC3\n...\n' \
			"$hex" "$hex"
		sed -n '/^---/,/^\.\.\./p' "$TOP/tests/data/exegesis/snippets.yaml" | sed -n '1,/^\.\.\./p'
	} > "$BATS_TEST_TMPDIR/sweep.yaml"
	run -1 --separate-stderr sbx run --format json "$BATS_TEST_TMPDIR/sweep.yaml"
	assert_equal "${#lines[@]}" 3
	assert_regex "${lines[0]}" '"value":'
	assert_regex "${lines[1]}" '"error":"[^"]*SIGSEGV at address 0x[0-9a-f]+, snippet\+0x[0-9a-f]+'
	assert_regex "${lines[2]}" '"value":'
}

@test "a snippet's process holds no descriptor of sbx run's: nothing it writes reaches the output" {
	run -0 --separate-stderr sbx run --allow-syscalls --benchmarks-file "$BATS_TEST_TMPDIR/out.yaml" \
		"$SN/write-fds.s"
	refute_output --partial EVIL
	run -0 grep -c '^mode:' "$BATS_TEST_TMPDIR/out.yaml"
	run -1 grep EVIL "$BATS_TEST_TMPDIR/out.yaml"
	# standard output is the output: the snippet's is /dev/null
	run -0 --separate-stderr sbx run --allow-syscalls --format yaml "$SN/write-fds.s"
	refute_output --partial EVIL
	assert_line --regexp '^mode: +latency'
}

# As a plain user: a folder nobody may read, with the snippets of the test.
plain_user_dir() {
	PLAIN=$(mktemp -d /tmp/sbx-plain.XXXXXX)
	chmod 755 "$PLAIN"
	cp "$@" "$PLAIN/"
	chmod 644 "$PLAIN"/*
}

# the command prefix that runs as nobody
PLAIN_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups)

teardown() {
	[ -z "${PLAIN:-}" ] || rm -rf "$PLAIN"
}

@test "a snippet that SIGSTOPs sbx run cannot hold its --timeout (as root and as a plain user)" {
	run -1 --separate-stderr timeout 30 "$SBX" run --allow-syscalls --timeout 2 "$SN/stop-parent.s"
	assert_equal "$stderr" "sbx run: error: $SN/stop-parent.s: timed out after 2 s"
	[ "$(id -u)" -eq 0 ] || skip "running as another user needs root"
	plain_user_dir "$SN/stop-parent.s"
	run -1 --separate-stderr timeout 30 "${PLAIN_USER[@]}" "$SBX" run --allow-syscalls --timeout 2 \
		"$PLAIN/stop-parent.s"
	assert_equal "$stderr" "sbx run: error: $PLAIN/stop-parent.s: timed out after 2 s"
}

# Start sbx (as the command in "$@" before it, under the name $tag) on the escape
# snippet in folder $1, see its daemon spin, SIGKILL sbx: nothing of it may remain.
escape_and_kill() {
	local dir=$1 tag=sbx-e$RANDOM pid n cg
	shift
	ln -s "$SBX" "$dir/$tag"
	live() { pgrep -c -r R,S,D,T,t -x "$tag" || true; }	# not zombies
	"$@" "$dir/$tag" run --allow-syscalls --timeout 60 "$dir/escape.s" 2> "$dir/err" &
	pid=$!
	# sbx run, the snippet's child and its daemon (the watchdog and init have names of their own)
	for _ in $(seq 200); do [ "$(live)" -ge 3 ] && break; sleep 0.05; done
	[ "$(live)" -ge 3 ] || { cat "$dir/err"; ps -eo pid,ppid,stat,comm; false; }
	# the watchdog it tried to kill lives, and sbx was not stopped
	pgrep -x sbx-watchdog > /dev/null || [ ! -d "$(cgroup2_mount)" ]
	run ps -o stat= -p "$(pgrep -o -x "$tag")"
	refute_output --regexp 'T'
	SBX_PID=$(pgrep -o -x "$tag")
	kill -KILL "$SBX_PID"
	wait "$pid" || true
	for _ in $(seq 100); do [ "$(live)" -eq 0 ] && break; sleep 0.05; done
	n=$(live)
	[ "$n" -eq 0 ] || { ps -eo pid,ppid,stat,comm,cgroup | grep -e "$tag" -e sbx-; pkill -KILL -x "$tag"; false; }
	# and its cgroup is gone
	cg=$(cgroup2_mount)
	[ -n "$cg" ] || return 0
	for _ in $(seq 100); do [ -d "$cg/sbx-$SBX_PID" ] || break; sleep 0.05; done
	[ ! -d "$cg/sbx-$SBX_PID" ]
}

@test "a snippet that kills the watchdog, leaves sbx's cgroup and forks a daemon does not outlive a SIGKILL of sbx run (as root and as a plain user)" {
	snippet_from_c escape
	escape_and_kill "$BATS_TEST_TMPDIR"
	[ "$(id -u)" -eq 0 ] || skip "running as another user needs root"
	plain_user_dir "$BATS_TEST_TMPDIR/escape.s"
	escape_and_kill "$PLAIN" "${PLAIN_USER[@]}"
}

@test "what a SIGKILL of sbx run leaves (a temporary folder, an sbx-PID cgroup) goes with the next run" {
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir "$TMPDIR"
	# an assembler that hangs: sbx run is killed while its folder is there
	printf '#!/bin/sh\nsleep 60\n' > "$BATS_TEST_TMPDIR/slow-as"
	chmod +x "$BATS_TEST_TMPDIR/slow-as"
	"$SBX" run --timeout 60 --assembler "$BATS_TEST_TMPDIR/slow-as" "$SN/add-chain.s" 2> /dev/null &
	pid=$!
	for _ in $(seq 100); do compgen -G "$TMPDIR/sbx-run-*" > /dev/null && break; sleep 0.05; done
	kill -KILL $pid
	wait $pid || true
	left=$(compgen -G "$TMPDIR/sbx-run-*")
	[ -d "$left" ] && [ -e "$left/snippet.s" ]
	# a folder another sbx holds, one made a moment ago, and a link of that name stay
	mkdir "$TMPDIR/sbx-run-held00" "$TMPDIR/sbx-run-young0" "$BATS_TEST_TMPDIR/victim"
	touch "$BATS_TEST_TMPDIR/victim/keep"
	ln -s "$BATS_TEST_TMPDIR/victim" "$TMPDIR/sbx-run-link00"
	touch -h -d '2 minutes ago' "$left" "$TMPDIR/sbx-run-held00" "$TMPDIR/sbx-run-link00"
	flock "$TMPDIR/sbx-run-held00" sleep 30 &
	holder=$!
	sleep 0.2
	# and a cgroup of a gone sbx (its watchdog killed with it)
	local cg stale=
	cg=$(cgroup2_mount)
	if [ "$(id -u)" -eq 0 ] && [ -n "$cg" ]; then
		for p in $(seq 4194000 4194300); do kill -0 $p 2> /dev/null || { stale=$cg/sbx-$p; break; }; done
		mkdir "$stale"
	fi
	run -0 sbx run "$SN/add-chain.s"
	[ ! -e "$left" ]
	[ -d "$TMPDIR/sbx-run-held00" ] && [ -d "$TMPDIR/sbx-run-young0" ]
	[ -L "$TMPDIR/sbx-run-link00" ] && [ -e "$BATS_TEST_TMPDIR/victim/keep" ]
	[ -z "$stale" ] || [ ! -d "$stale" ]
	kill $holder
	# nothing of its own stays
	run -0 bash -c 'compgen -G "$TMPDIR/sbx-run-*" | sort'
	assert_output "$(printf '%s\n' "$TMPDIR/sbx-run-held00" "$TMPDIR/sbx-run-link00" "$TMPDIR/sbx-run-young0")"
}

@test "where no PID namespace can be made, --allow-syscalls says the snippets can reach sbx's processes" {
	# a kernel that refuses new namespaces, as a container may
	local nons=$BUILD/tests/tools/no-namespaces
	run -0 --separate-stderr "$nons" "$SBX" run --allow-syscalls "$SN/add-chain.s"
	drop_drift_warnings
	assert_equal "${stderr_lines[*]}" "sbx run: warning: --allow-syscalls: no $([ "$(id -u)" -eq 0 ] || echo 'user namespace for a ')PID namespace: Operation not permitted$([ "$(id -u)" -eq 0 ] || echo ' (see /proc/sys/user/max_user_namespaces)'); the snippets can see and signal sbx's processes (a SIGSTOP to sbx holds its --timeout)"
	assert_line --regexp 'add-chain\.s +latency'
	# under seccomp they can signal nothing: no warning
	run -0 --separate-stderr "$nons" "$SBX" run "$SN/add-chain.s"
	drop_drift_warnings
	assert_equal "${#stderr_lines[@]}" 0
	[ "$(id -u)" -eq 0 ] || return 0
	plain_user_dir "$SN/add-chain.s"
	run -0 --separate-stderr "${PLAIN_USER[@]}" "$nons" "$SBX" run --allow-syscalls "$PLAIN/add-chain.s"
	drop_drift_warnings
	assert_equal "${stderr_lines[*]}" "sbx run: warning: --allow-syscalls: no user namespace for a PID namespace: Operation not permitted (see /proc/sys/user/max_user_namespaces); the snippets can see and signal sbx's processes (a SIGSTOP to sbx holds its --timeout)"
}

@test "a snippet with system calls cannot open sbx run's memory (as a plain user; root's may do anything root may)" {
	[ "$(id -u)" -eq 0 ] || skip "running as another user needs root"
	snippet_from_c reach-parent
	plain_user_dir "$BATS_TEST_TMPDIR/reach-parent.s"
	# it exits 3 when it opened /proc/PID/mem of a process named as it is (sbx run)
	run -0 --separate-stderr "${PLAIN_USER[@]}" "$SBX" run --allow-syscalls "$PLAIN/reach-parent.s"
	assert_line --regexp 'exit\(0\) .* the snippet exited with code 0 before it was measured'
}
