#!/usr/bin/env bats
# sbx jit-inject and jitdumps read directly, with perf as the judge: a tiny
# JIT whose code moves and whose address is reused, node's real jitdump,
# LLVM's ORC through libsbx-jit, and dumps that perf refuses or that are
# damaged.

load test_helper

setup_file() {
	command -v perf >/dev/null || return 0
	W=$BATS_FILE_TMPDIR
	mkdir -p "$W/d" "$W/pd" "$W/gone"
	# the tiny JIT: jit_alpha at A, moved to B, then jit_beta at A (equal work each)
	SBX_JIT_DIR=$W/d "$SBX" record -q -o "$W/t.data" -- "$WORKLOADS/tinyjit" \
		>"$W/t.pid" 2>/dev/null || true
	# the same, recorded by perf with the clock perf inject needs
	SBX_JIT_DIR=$W/pd perf record -q -k mono -e cpu-clock -o "$W/p.data" -- \
		"$WORKLOADS/tinyjit" >"$W/p.pid" 2>/dev/null || true
	# a recording whose dump is then removed: the bad-dump cases bring their own
	SBX_JIT_DIR=$W/gone "$SBX" record -q -o "$W/g.data" -- "$WORKLOADS/tinyjit" -i 20 \
		>"$W/g.pid" 2>/dev/null || true
	cp "$W/gone"/jit-*.dump "$W/g.dump" 2>/dev/null || true
	rm -rf "$W/gone"
}

setup() {
	command -v perf >/dev/null || skip "perf is not installed"
	require_perf_events
	W=$BATS_FILE_TMPDIR
	[ -s "$W/t.data" ] && [ -s "$W/p.data" ] || { echo "recording the tiny JIT failed"; return 1; }
	cd "$BATS_TEST_TMPDIR"
}

# "SYMBOL\tPERCENT" rows of perf report (--sort sym), sorted
perf_syms() {	# $1 file
	perf report --stdio --no-children -i "$1" -s sym 2>/dev/null |
		awk '/^#/ || NF < 3 { next } $1 ~ /%$/ { p = $1; sub(/%/, "", p);
			$1 = ""; $2 = ""; sub(/^ +/, ""); print $0 "\t" p }' | sort
}

# the same from sbx report
sbx_syms() {	# $1 file
	"$SBX" report -i "$1" -s sym 2>/dev/null |
		awk '/^#/ || NF < 3 { next } $1 ~ /%$/ { p = $1; sub(/%/, "", p);
			$1 = ""; $2 = ""; sub(/^ +/, ""); print $0 "\t" p }' | sort
}

# the share of one symbol in such rows (0 when absent)
share() {	# $1 rows file, $2 symbol
	awk -F '\t' -v s="$2" '$1 == s { t += $2 } END { printf "%.2f\n", t + 0 }' "$1"
}

# the summed share of the symbols that contain a string
share_like() {	# $1 rows file, $2 substring
	awk -F '\t' -v s="$2" 'index($1, s) { t += $2 } END { printf "%.2f\n", t + 0 }' "$1"
}

# a >= b - tol && a <= b + tol
within() {	# $1 a, $2 b, $3 tol
	python3 -c 'import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(abs(a - b) > t)' "$@" ||
		{ echo "$1 and $2 differ by more than $3"; return 1; }
}

@test "tiny JIT: sbx report names the jitted functions from the recording alone, before and after the move, and the reused address" {
	sbx_syms "$W/t.data" > sbx
	alpha=$(share sbx jit_alpha) beta=$(share sbx jit_beta)
	# alpha ran two phases (at A, then moved to B), beta one (at A): 2:1, each
	# iteration a dependent multiply, so the ratio holds on a busy machine
	within "$alpha" 66.7 12
	within "$beta" 33.3 12
	# samples of alpha at both addresses, and beta's own at alpha's first one
	run -0 sbx script -i "$W/t.data" -F ip,sym
	a_pages=$(printf '%s\n' "${lines[@]}" | awk '$2 == "jit_alpha" { print substr($1, 1, length($1) - 3) }' | sort -u | wc -l)
	[ "$a_pages" -eq 2 ]
	b_page=$(printf '%s\n' "${lines[@]}" | awk '$2 == "jit_beta" { print substr($1, 1, length($1) - 3) }' | sort -u)
	printf '%s\n' "${lines[@]}" | awk '$2 == "jit_alpha" { print substr($1, 1, length($1) - 3) }' | sort -u | grep -qx "$b_page"
	# nothing was left in anonymous memory unnamed
	run -0 sbx report -i "$W/t.data" -s dso
	refute_output --partial '//anon'
}

@test "tiny JIT: sbx report and sbx profgen make the images in a folder of \$TMPDIR and leave nothing there" {
	mkdir tmp
	TMPDIR=$PWD/tmp run -0 --separate-stderr sbx report -i "$W/t.data" -s dso --json
	jq -e --arg d "$PWD/tmp/sbx-jit-" 'any(.[]; .dso_path // "" | startswith($d))' <<< "$output"
	run -0 ls -A tmp
	assert_output ""
	# profgen too, which ends without freeing its heap: the images are named (profiled
	# with tinyjit, or listed when tinyjit took no sample), then gone
	TMPDIR=$PWD/tmp run --separate-stderr sbx profgen --show-detailed-warning -o t.prof "$W/t.data"
	[ "$status" -le 1 ]
	[[ $stderr == *"jit-$(cat "$W/t.pid").so"* ]]
	run -0 ls -A tmp
	assert_output ""
}

@test "tiny JIT: after sbx jit-inject, perf report gives exactly sbx report's shares; sbx report reads the output alike" {
	run -0 --separate-stderr sbx jit-inject -i "$W/t.data" -o out.data --jit-dir "$PWD"
	assert_regex "$stderr" '1 jitdumps \(2 loads, 1 moves\) -> 1 images, 3 MMAP2 records injected'
	# one image, in the chosen folder
	run -0 find . -name '*.so'
	assert_output "./jit-$(cat "$W/t.pid").so"
	perf report -i out.data --stdio >/dev/null 2>perf.err
	[ ! -s perf.err ] || { cat perf.err; return 1; }
	perf_syms out.data > perf
	sbx_syms "$W/t.data" > sbx
	diff perf sbx
	sbx_syms out.data > sbx2
	diff sbx sbx2
	# perf finds the image by the build-id it recorded
	run -0 perf buildid-list -i out.data
	assert_output --partial "jit-$(cat "$W/t.pid").so"
}

@test "tiny JIT: pipes on both sides: sbx record -o - | sbx jit-inject | perf report -i -" {
	SBX_JIT_DIR=$PWD sbx record -q -o - -- "$WORKLOADS/tinyjit" -i 60 2>/dev/null |
		sbx jit-inject -q -i - -o - > piped.data
	perf report -i - --stdio --no-children -s sym < piped.data 2>/dev/null > rep
	grep -q 'jit_alpha' rep
	grep -q 'jit_beta' rep
	# pipe in, file out
	sbx jit-inject -q -i - -o file.data < piped.data
	perf_syms file.data > a
	perf_syms piped.data > b
	diff a b
}

@test "tiny JIT recorded by perf -k mono: sbx jit-inject and perf inject --jit give perf report the same shares" {
	perf inject --jit -i "$W/p.data" -o perf-inj.data 2>/dev/null
	run -0 sbx jit-inject -q -i "$W/p.data" -o sbx-inj.data --jit-dir "$PWD"
	perf_syms perf-inj.data > a
	perf_syms sbx-inj.data > b
	diff a b
	# perf made one .so per function, sbx one image for the dump
	[ "$(ls "$W/pd"/jitted-*.so | wc -l)" -eq 2 ]
	[ "$(ls ./*.so | wc -l)" -eq 1 ]
	# sbx reads perf's recording without the inject step, and perf's injected file
	sbx_syms "$W/p.data" > c
	diff a c
	sbx_syms perf-inj.data > d
	diff a d
}

@test "tiny JIT: the images carry the dump's lines: addr2line, llvm-symbolizer and perf report --sort srcline" {
	run -0 sbx jit-inject -q -i "$W/t.data" -o out.data --jit-dir "$PWD"
	img=$(ls ./*.so)
	# alpha is the image's first function: .text at 0x80, its loop at +0x11..
	run -0 addr2line -f -e "$img" 0x95
	assert_output "$(printf 'jit_alpha\ntinyjit.jit:11')"
	sym=$(llvm-config-19 --bindir)/llvm-symbolizer
	run -0 "$sym" --obj="$img" 0x95
	assert_line --index 0 jit_alpha
	assert_line --index 1 --regexp '^tinyjit.jit:11'
	# perf names samples of both functions by the dump's lines (alpha's are 10-12,
	# beta's 20-22; which of a loop's lines the timer's samples land on varies)
	run -0 perf report -i out.data --stdio -s srcline
	assert_line --regexp '^ +[0-9.]+%  tinyjit\.jit:1[0-2]$'
	assert_line --regexp '^ +[0-9.]+%  tinyjit\.jit:2[0-2]$'
}

@test "node --perf-prof: the JS function as perf inject --jit attributes it (within 2 points), and sbx report without inject" {
	command -v node >/dev/null || { echo "node is not installed"; return 1; }
	cat > hot.js <<-'EOF'
	function hotLoop(n) {
		let x = 1;
		for (let i = 0; i < n; i++)
			x = (x * 1103515245 + 12345) % 2147483647;
		return x;
	}
	let s = 0;
	for (let k = 0; k < 20; k++)
		s += hotLoop(2000000);
	console.log(s);
	EOF
	mkdir s p
	(cd s && sbx record -q -o ../s.data -- node --perf-prof --interpreted-frames-native-stack ../hot.js >/dev/null 2>&1)
	(cd p && perf record -q -k mono -e cpu-clock -o ../p.data -- node --perf-prof \
		--interpreted-frames-native-stack ../hot.js >/dev/null 2>&1)
	perf inject --jit -i p.data -o p.inj.data
	# the same recording through both injectors: perf report agrees within 2 points
	run -0 sbx jit-inject -q -i p.data -o p.sbx.data --jit-dir "$PWD"
	perf_syms p.inj.data > perf
	perf_syms p.sbx.data > sbxinj
	a=$(share_like perf hotLoop) b=$(share_like sbxinj hotLoop)
	python3 -c "import sys; sys.exit(not float('$a') > 50)"
	within "$a" "$b" 2 || { paste perf sbxinj | head -20; return 1; }
	# sbx report on perf's recording itself, no inject: what perf reads after sbx's inject
	sbx_syms p.data > pdirect
	within "$(share_like pdirect hotLoop)" "$b" 0.01
	# recorded by sbx: jit-inject, then perf report, and sbx report without inject agree
	run -0 sbx jit-inject -q -i s.data -o s.inj.data
	perf_syms s.inj.data > s_perf
	sbx_syms s.data > s_direct
	c=$(share_like s_perf hotLoop)
	within "$(share_like s_direct hotLoop)" "$c" 0.01
	# and the two recordings of one workload are alike (another run: a loose bound)
	within "$a" "$c" 10
	# node's thousands of code loads: one image, not one .so per function
	[ "$(ls p/jitted-*.so | wc -l)" -gt 100 ]
	[ "$(ls ./*.so | wc -l)" -eq 1 ]
	[ "$(ls s/*.so | wc -l)" -eq 1 ]
}

@test "LLVM 19 JITLink's jitdump (garbage header flags): perf inject refuses it, sbx names the function" {
	jitlink=$(llvm-config-19 --bindir)/llvm-jitlink
	[ -x "$jitlink" ] || { echo "llvm-jitlink 19 is not installed (llvm-19)"; return 1; }
	cat > prog.c <<-'EOF'
	__attribute__((noinline)) unsigned long hot_jitlink(unsigned long n) {
		unsigned long x = 1;
		for (unsigned long i = 0; i < n; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		return x;
	}
	int main(void) { return (int)(hot_jitlink(300000000ul) & 1) + 7; }
	EOF
	clang -c -O1 -g -o prog.o prog.c
	JITDUMPDIR=$PWD sbx record -q -o j.data -- "$jitlink" -perf-support prog.o 2>/dev/null || true
	dump=$(find .debug -name 'jit-*.dump' | head -1)
	[ -n "$dump" ]
	# the flags LLVM 19 leaves uninitialized
	run -0 python3 -c 'import struct, sys; print(hex(struct.unpack_from("<Q", open(sys.argv[1], "rb").read(), 32)[0]))' "$dump"
	[ "$output" != 0x0 ]
	perf record -q -k mono -e cpu-clock -o pj.data -- env JITDUMPDIR=$PWD/p "$jitlink" -perf-support prog.o >/dev/null 2>&1 || true
	run perf inject --jit -i pj.data -o pj.inj.data
	[ "$status" -ne 0 ] || ! perf_syms pj.inj.data | grep -q hot_jitlink
	run -0 --separate-stderr sbx jit-inject -i j.data -o j.inj.data
	assert_regex "$stderr" 'unknown header flags'
	perf_syms j.inj.data > rows
	top=$(sort -t$'\t' -k2 -gr rows | head -1 | cut -f1)
	[ "$top" = hot_jitlink ]
	sbx_syms j.data > direct
	[ "$(sort -t$'\t' -k2 -gr direct | head -1 | cut -f1)" = hot_jitlink ]
}

@test "a JIT written against libsbx-jit (LLVM ORC, Documentation/examples): hot_loop named after jit-inject" {
	ex=$BUILD/examples/lljit-sbx
	[ -x "$ex" ] || { echo "make examples did not build $ex"; return 1; }
	SBX_JIT_DIR=$PWD sbx record -q -o e.data -- "$ex" >/dev/null 2>&1
	run -0 sbx jit-inject -q -i e.data -o e.inj.data
	perf_syms e.inj.data > rows
	[ "$(sort -t$'\t' -k2 -gr rows | head -1 | cut -f1)" = hot_loop ]
	sbx_syms e.data > direct
	[ "$(sort -t$'\t' -k2 -gr direct | head -1 | cut -f1)" = hot_loop ]
}

@test "bad dumps: wrong magic, truncated, wrong pid, missing, bad flags, a lying clock flag: warnings, the rest injected" {
	[ -s "$W/g.dump" ] || { echo "no dump recorded"; return 1; }
	pid=$(cat "$W/g.pid")
	mkdir magic trunc pidx missing flags clock
	# wrong magic
	{ printf 'NOPE'; tail -c +5 "$W/g.dump"; } > magic/jit-$pid.dump
	run -0 --separate-stderr sbx jit-inject -i "$W/g.data" -o m.data --jit-dir magic
	assert_regex "$stderr" 'not a jitdump \(bad magic'
	perf report -i m.data --stdio >/dev/null 2>&1
	# truncated inside the third record (the move): alpha at A stays named
	python3 - "$W/g.dump" trunc/jit-$pid.dump <<-'EOF'
	import struct, sys
	b = open(sys.argv[1], "rb").read()
	off = 40
	for _ in range(2):
	    off += struct.unpack_from("<I", b, off + 4)[0]
	open(sys.argv[2], "wb").write(b[:off + 40])
	EOF
	run -0 --separate-stderr sbx jit-inject -i "$W/g.data" -o t.data --jit-dir trunc
	assert_regex "$stderr" 'record at offset [0-9]+ has size [0-9]+, past the end of the dump'
	perf_syms t.data > rows
	grep -q '^jit_alpha	' rows
	! grep -q '^jit_beta	' rows
	# the header's pid is not the process's
	python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[20:24] = (12345).to_bytes(4, "little"); open(sys.argv[2], "wb").write(b)' \
		"$W/g.dump" pidx/jit-$pid.dump
	run -0 --separate-stderr sbx jit-inject -i "$W/g.data" -o p.data --jit-dir pidx
	assert_regex "$stderr" 'header says pid 12345, but pid [0-9]+ mapped it'
	perf_syms p.data | grep -q '^jit_beta	'
	# missing
	run -0 --separate-stderr sbx jit-inject -i "$W/g.data" -o x.data --jit-dir missing
	assert_regex "$stderr" "jit-$pid.dump: No such file or directory; the jitted code of pid $pid stays unnamed"
	# garbage flags, as LLVM 19 writes them: perf refuses, sbx warns and names
	python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[32:40] = (0x6265642e2f640300).to_bytes(8, "little"); open(sys.argv[2], "wb").write(b)' \
		"$W/g.dump" flags/jit-$pid.dump
	run -0 --separate-stderr sbx jit-inject -i "$W/g.data" -o f.data --jit-dir flags
	assert_regex "$stderr" 'unknown header flags 0x6265642e2f640300 ignored'
	perf_syms f.data | grep -q '^jit_beta	'
	# ARCH_TIMESTAMP claimed on CLOCK_MONOTONIC times (libxsmm's case): read as monotonic
	python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[32:40] = (1).to_bytes(8, "little"); open(sys.argv[2], "wb").write(b)' \
		"$W/g.dump" clock/jit-$pid.dump
	run -0 --separate-stderr sbx jit-inject -i "$W/g.data" -o c.data --jit-dir clock
	assert_regex "$stderr" '(header says TSC.*read as CLOCK_MONOTONIC|shifted to start)'
	perf_syms c.data > rows
	grep -q '^jit_alpha	' rows
	grep -q '^jit_beta	' rows
}

@test "hostile names: a function called ../../x/alpha stays a symbol; nothing is written outside the folder" {
	mkdir -p out/jit
	SBX_JIT_DIR=$PWD/out/jit sbx record -q -o h.data -- "$WORKLOADS/tinyjit" -n '../../../x/' -i 20 >/dev/null 2>&1
	run -0 sbx jit-inject -q -i h.data -o h.inj.data
	run -0 bash -c 'find . -newer h.data -type f | sort'
	assert_output "$(printf './h.inj.data\n./out/jit/jit-%s.so' "$(ls out/jit | sed -n 's/jit-\([0-9]*\).dump/\1/p')" | sort)"
	perf_syms h.inj.data | grep -q '^\.\./\.\./\.\./x/alpha	'
}

@test "--perf-map: images from /tmp/perf-PID.map, so reports name the code after the map file is gone" {
	run -0 --separate-stderr sbx record -q -o pm.data -- "$WORKLOADS/jitmap" jitmap_spinner
	pid=$output
	mkdir imgs
	run -0 --separate-stderr sbx jit-inject --perf-map --jit-dir imgs -i pm.data -o pm.inj.data
	assert_regex "$stderr" 'with perf-map images'
	rm -f "/tmp/perf-$pid.map"
	perf_syms pm.inj.data > rows
	[ "$(sort -t$'\t' -k2 -gr rows | head -1 | cut -f1)" = jitmap_spinner ]
	sbx_syms pm.inj.data > rows2
	[ "$(sort -t$'\t' -k2 -gr rows2 | head -1 | cut -f1)" = jitmap_spinner ]
	# without the map file and without --perf-map, the code is unnamed
	sbx jit-inject -q -i pm.data -o plain.data
	! perf_syms plain.data | grep -q jitmap_spinner
}

@test "report: anonymous code is perf's [JIT] tid N, with its map file or without" {
	run -0 --separate-stderr sbx record -q -o jm.data -- "$WORKLOADS/jitmap" jitmap_spinner
	pid=$output
	for map in kept gone; do
		[ $map = kept ] || rm -f "/tmp/perf-$pid.map"
		perf report --stdio --no-children -i jm.data -s dso,sym 2>/dev/null |
			grep -v -e '^#' -e '^$' | sort > perf.rows
		run -0 --separate-stderr sbx report -i jm.data -s dso,sym
		grep -v '^#' <<< "$output" | sort > sbx.rows
		diff perf.rows sbx.rows
		grep -q "\[JIT\] tid $pid " sbx.rows
	done
	rm -f "/tmp/perf-$pid.map"
	# --dso takes the name as shown, or the path
	run -0 sbx report -i jm.data --dso "[JIT] tid $pid" -s sym
	assert_line --regexp '^ +[0-9.]+%  \[\.\] 0x0000'
	run -0 sbx report -i jm.data --dso "/tmp/perf-$pid.map" -s sym
	assert_line --regexp '^ +[0-9.]+%  \[\.\] 0x0000'
}

@test "jit-inject: usage errors exit 2; --json counts; no jitdump is a warning" {
	run -2 sbx jit-inject -i "$W/t.data" extra
	assert_output --partial "unexpected operand 'extra'"
	run -2 sbx jit-inject -i "$W/t.data" -o x.data --jit-dir /nonexistent
	assert_output --partial 'not a folder'
	run -2 sbx jit-inject -i "$W/t.data" --json
	run -2 sbx jit-inject -i "$W/t.data" -o ''
	run -1 sbx jit-inject -i nothing.data -o x.data
	[ ! -e x.data ]
	run -0 --separate-stderr sbx jit-inject -i "$W/t.data" -o j.data --jit-dir "$PWD" --json
	[ "$(echo "$output" | jq '.loads, .moves, .images, .mmaps')" = "$(printf '2\n1\n1\n3')" ]
	sbx record -q -o plain.data -- "$WORKLOADS/noploop" 50 >/dev/null 2>&1
	run -0 --separate-stderr sbx jit-inject -i plain.data -o plain.out
	assert_regex "$stderr" 'no jitdump was mapped'
}

@test "files in shared folders: a link or a FIFO at a perf map's, a jitdump's or an image's name is never followed, waited on or written through" {
	# the tiny JIT, its dump in a folder of ours, then replaced
	mkdir j
	SBX_JIT_DIR=$PWD/j sbx record -q -o j.data -- "$WORKLOADS/tinyjit" -i 20 > j.pid 2> /dev/null
	pid=$(cat j.pid)
	mv "j/jit-$pid.dump" real.dump
	# a jitdump that is a FIFO, or a link (to /dev/zero, or to the real dump): a warning, the rest read
	for kind in fifo zero link; do
		rm -f "j/jit-$pid.dump"
		case $kind in
		fifo) mkfifo "j/jit-$pid.dump" ;;
		zero) ln -s /dev/zero "j/jit-$pid.dump" ;;
		link) ln -s "$PWD/real.dump" "j/jit-$pid.dump" ;;
		esac
		case $kind in
		fifo) why='not a regular file \(a FIFO\)' ;;
		*) why='a symbolic link, not followed' ;;
		esac
		for cmd in report script; do
			run -0 --separate-stderr timeout 20 "$SBX" $cmd -i j.data
			assert_regex "$stderr" "jit-$pid.dump: $why; the jitted code of pid $pid stays unnamed"
			refute_output --partial jit_alpha
		done
		run -0 --separate-stderr timeout 20 "$SBX" jit-inject -i j.data -o j.inj.data
		assert_regex "$stderr" "jit-$pid.dump: $why; the jitted code of pid $pid stays unnamed"
		# (no sample falls in tinyjit's own code: exit 1, after the warning)
		run --separate-stderr timeout 20 "$SBX" profgen j.data --binary "$WORKLOADS/tinyjit" -o j.prof
		[ "$status" -le 1 ]
		assert_regex "$stderr" "jit-$pid.dump: $why; the jitted code of pid $pid stays unnamed"
	done
	# images: a link at jit-PID.so to a file of someone else's is not written through (jit-inject
	# as root, in a folder its owner controls): the image replaces the link; a FIFO there is
	# replaced, never opened; a folder there makes it take the next name
	rm -f "j/jit-$pid.dump"
	cp real.dump "j/jit-$pid.dump"
	echo precious > victim
	for holder in link fifo folder; do
		rm -rf "j/jit-$pid.so" "j/jit-$pid-1.so"
		case $holder in
		link) ln -s "$PWD/victim" "j/jit-$pid.so" ;;
		fifo) mkfifo "j/jit-$pid.so" ;;
		folder) mkdir "j/jit-$pid.so" ;;
		esac
		run -0 --separate-stderr timeout 20 "$SBX" jit-inject -i j.data -o j.inj.data
		assert_equal "$(cat victim)" precious
		image=j/jit-$pid.so
		[ $holder != folder ] || image=j/jit-$pid-1.so
		[ -f "$image" ] && [ ! -L "$image" ]
		perf_syms j.inj.data > rows
		grep -q '^jit_alpha	' rows
		grep -q '^jit_beta	' rows
	done
}

@test "--perf-map: a link or a FIFO at /tmp/perf-PID.map is never followed or waited on; the images go into a folder of their own" {
	run -0 --separate-stderr sbx record -q -o pm.data -- "$WORKLOADS/jitmap" jitmap_spinner
	pid=$output
	mv "/tmp/perf-$pid.map" real.map
	for kind in fifo zero link; do
		rm -f "/tmp/perf-$pid.map"
		case $kind in
		fifo) mkfifo "/tmp/perf-$pid.map" ;;
		zero) ln -s /dev/zero "/tmp/perf-$pid.map" ;;
		link) ln -s "$PWD/real.map" "/tmp/perf-$pid.map" ;;
		esac
		run -0 --separate-stderr timeout 20 "$SBX" report -i pm.data -s sym
		refute_output --partial jitmap_spinner
		run -0 --separate-stderr timeout 20 "$SBX" script -i pm.data
		refute_output --partial jitmap_spinner
		run -0 --separate-stderr timeout 20 "$SBX" jit-inject --perf-map -i pm.data -o pm.inj.data
	done
	# the map as the JIT wrote it; without --jit-dir the images go into a folder made for them
	# (perf takes any /tmp/perf-*.so for a map file, and a name in /tmp is anyone's to take)
	rm -f "/tmp/perf-$pid.map"
	cp real.map "/tmp/perf-$pid.map"
	mkdir json
	run -0 --separate-stderr env TMPDIR="$PWD" "$SBX" jit-inject --perf-map -i pm.data -o pm.inj.data
	assert_regex "$stderr" "\(with perf-map images in $PWD/sbx-perf-maps-[A-Za-z0-9]{6}\)\$"
	run -0 --separate-stderr env TMPDIR="$PWD/json" "$SBX" jit-inject --json --perf-map -i pm.data -o pm2.data
	rm -f "/tmp/perf-$pid.map"
	run -0 jq -e '.perf_map_dir | test("/json/sbx-perf-maps-")' <<< "$output"
	dir=$(compgen -G "$PWD/sbx-perf-maps-*")
	[ "$(stat -c '%a %u' "$dir")" = "755 $(id -u)" ]
	compgen -G "$dir/perf-$pid-*.so" > /dev/null
	perf_syms pm.inj.data > rows
	[ "$(sort -t$'\t' -k2 -gr rows | head -1 | cut -f1)" = jitmap_spinner ]
}

@test "dumps that are hard on a reader: 50,000 moves of one function, 200,000 line files; read in linear time" {
	mkdir j
	SBX_JIT_DIR=$PWD/j sbx record -q -o j.data -- "$WORKLOADS/tinyjit" -i 20 > j.pid 2> /dev/null
	pid=$(cat j.pid)
	"$TOP/tests/tools/gen-jitdump.py" "j/jit-$pid.dump" "$pid" moves
	run -0 --separate-stderr timeout 120 "$SBX" jit-inject -i j.data -o m.data
	assert_equal "${stderr_lines[-1]}" "sbx jit-inject: 1 jitdumps (1 loads, 50000 moves) -> 1 images, 50001 MMAP2 records injected"
	perf report -i m.data --stdio > /dev/null 2>&1
	rm "j/jit-$pid.so"
	"$TOP/tests/tools/gen-jitdump.py" "j/jit-$pid.dump" "$pid" lines
	run -0 --separate-stderr timeout 120 "$SBX" jit-inject -i j.data -o l.data
	assert_equal "${stderr_lines[-1]}" "sbx jit-inject: 1 jitdumps (1 loads, 0 moves) -> 1 images, 1 MMAP2 records injected"
	# every file in the image's line table, once, in order
	run -0 bash -c "readelf --debug-dump=rawline j/jit-$pid.so | grep -c '/src/file[0-9]*\.js\$'"
	assert_output 200000
	run -0 bash -c "readelf --debug-dump=rawline j/jit-$pid.so | grep '/src/file199999\.js\$'"
	assert_output --regexp '^ +200000\s'
}

@test "hostile names: a jitted function called 'evil<newline> 99.99%  sshd' forges no row of report, script or the images' readers" {
	mkdir j
	SBX_JIT_DIR=$PWD/j sbx record -q -g -o e.data -- "$WORKLOADS/tinyjit" -n $'evil\n 99.99%  sshd\e[2J ' -i 20 > /dev/null 2>&1
	run -0 --separate-stderr sbx report -i e.data -s sym
	refute_output --partial $'\n 99.99%'
	assert_line --regexp '^ +[0-9.]+%  \[\.\] evil\\n 99\.99%  sshd\\x1b\[2J alpha$'
	assert_line --regexp '^ +[0-9.]+%  \[\.\] evil\\n 99\.99%  sshd\\x1b\[2J beta$'
	run -0 --separate-stderr sbx report -i e.data -g -s sym
	refute_output --partial $'\e'
	run -0 --separate-stderr sbx script -i e.data
	refute_output --partial $'\e'
	assert_line --regexp 'evil\\n 99\.99%  sshd\\x1b\[2J alpha\+0x'
	# after jit-inject sbx reads the names back from its images as it showed them
	run -0 sbx jit-inject -q -i e.data -o e.inj.data --jit-dir "$PWD/j"
	run -0 --separate-stderr sbx report -i e.inj.data -s sym
	assert_line --regexp '^ +[0-9.]+%  \[\.\] evil\\n 99\.99%  sshd\\x1b\[2J alpha$'
}

@test "report: the image folder a SIGKILL left goes with the next reader's run" {
	export TMPDIR=$PWD/tmp
	mkdir "$TMPDIR"
	# a reader killed while its images were there
	mkdir "$TMPDIR/sbx-jit-killed"
	touch "$TMPDIR/sbx-jit-killed/jit-1.so"
	touch -d '2 minutes ago' "$TMPDIR/sbx-jit-killed"
	run -0 --separate-stderr sbx report -i "$W/t.data" -s sym
	assert_line --regexp '\[\.\] jit_alpha$'
	[ ! -e "$TMPDIR/sbx-jit-killed" ]
	run -0 ls -A "$TMPDIR"
	assert_output ''
}
