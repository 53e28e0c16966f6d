#!/usr/bin/env bats
# sbx profgen, with perf, llvm-profgen 19, llvm-profdata 14 and 19 and clang
# as the judges: samples attributed per process as perf report attributes
# them; branch-stack profiles byte for byte those of llvm-profgen 19; every
# profile read by llvm-profdata and used by clang.

load test_helper

LLVM19=$(llvm-config-19 --bindir 2>/dev/null || echo /usr/lib/llvm-19/bin)
PROFGEN19=$LLVM19/llvm-profgen
PROFDATA19=$LLVM19/llvm-profdata
PROFDATA14=$(command -v llvm-profdata-14 || echo /usr/lib/llvm-14/bin/llvm-profdata)
SWLBR=$BUILD/tests/tools/swlbr
GENLBR=$BUILD/tests/tools/gen-lbr
W=$WORKLOADS/profgen-loops

setup_file() {
	command -v perf >/dev/null || return 0
	D=$BATS_FILE_TMPDIR
	# the upstream bug's case: two processes of one PIE at once, loop1 ≈ 2/3
	perf record -q -e cpu-clock -F 999 -o "$D/two.data" -- \
		sh -c "'$W' 1 300 & '$W' 2 150 & wait" >/dev/null 2>&1 || true
	# a software LBR trace of the calls mode: loops, calls, inlining, a tail call
	"$SWLBR" -p 7 -o "$D/lbr.data" -- "$W" calls 300 >/dev/null 2>&1 || true
}

setup() {
	command -v perf >/dev/null || skip "perf is not installed"
	require_perf_events
	D=$BATS_FILE_TMPDIR
	cd "$BATS_TEST_TMPDIR"
}

# "FUNCTION SAMPLES" of perf report -s sym -n for the user symbols of $1
perf_sym_counts() {
	perf report --stdio --no-children -n -s sym -i "$1" 2>/dev/null |
		awk '/^#/ || NF < 4 { next } $3 == "[.]" { print $4, $2 }' | sort
}

# "FUNCTION TOTAL" of the top-level functions of a text profile
profile_totals() {
	awk '/^[^ ]/ { n = split($0, f, ":"); print f[1], f[n - 1] }' "$1" | sort
}

# Fail unless every function of $1 has the same count in $2 within $3 percent.
within() {
	python3 - "$1" "$2" "$3" <<-'EOF'
	import sys
	def load(p):
	    return {l.split()[0]: int(l.split()[1]) for l in open(p) if l.strip()}
	want, got, pct = load(sys.argv[1]), load(sys.argv[2]), float(sys.argv[3])
	bad = 0
	for f, n in want.items():
	    g = got.get(f, 0)
	    if abs(g - n) > n * pct / 100:
	        print(f"{f}: expected {n} (within {pct}%), got {g}")
	        bad += 1
	sys.exit(1 if bad else 0)
	EOF
}

@test "profgen: two processes of one PIE at once (perf record): every sample in its own function" {
	[ -s "$D/two.data" ] || { echo "perf record could not record"; return 1; }
	run -0 --separate-stderr sbx profgen --binary "$W" -o two.prof "$D/two.data"
	assert_regex "${stderr_lines[-1]}" '^sbx profgen: [0-9]+ samples, [0-9]+ in the profile .* \(IP samples\)$'
	perf_sym_counts "$D/two.data" | grep -E '^loop[12] ' > perf.counts
	profile_totals two.prof | grep -E '^loop[12] ' > sbx.counts
	# about 250 and 130 samples here: the totals are perf's counts (10% allowed)
	[ "$(wc -l < perf.counts)" -eq 2 ]
	run -0 within perf.counts sbx.counts 10
	# and llvm-profgen 19 cannot make a profile from IP samples at all
	run -1 "$PROFGEN19" --binary="$W" --perfdata="$D/two.data" --output=x.prof
	assert_output --partial 'Invalid perf script input'
}

@test "profgen: the same under sbx record, through a pipe" {
	run -0 bash -c "set -o pipefail; '$SBX' record -q -e cpu-clock -F 999 -o - -- \
		sh -c \"'$W' 1 300 & '$W' 2 150 & wait\" | tee rec.data | '$SBX' profgen - --binary '$W' -o pipe.prof"
	perf_sym_counts rec.data | grep -E '^loop[12] ' > perf.counts
	profile_totals pipe.prof | grep -E '^loop[12] ' > sbx.counts
	[ "$(wc -l < perf.counts)" -eq 2 ]
	run -0 within perf.counts sbx.counts 10
}

@test "profgen: 8 processes of one PIE started one after another: all their samples attributed" {
	perf record -q -e cpu-clock -F 999 -o eight.data -- \
		sh -c "for i in 1 2 3 4 5 6 7 8; do '$W' 1 40 & sleep 0.02; done; wait" >/dev/null 2>&1
	# perf's count for the DSO
	want=$(perf report --stdio -n -s dso -i eight.data 2>/dev/null |
		awk '$3 == "profgen-loops" { print $2 }')
	[ -n "$want" ] && [ "$want" -gt 100 ]
	run -0 --separate-stderr sbx profgen --json --binary "$W" eight.data
	got=$(echo "$output" | jq '.used + .left_out["outside any function"] + .left_out["no line"]')
	assert_equal "$got" "$want"
	echo "$output" | jq -e '.mode == "ip" and (.functions[0].name == "loop1")'
}

@test "profgen: without --binary, the executable with the most samples, the others named; when its file is gone, an error" {
	local here
	# no build-id: no cache holds it, so once removed its file is nowhere
	cc -O2 -Wl,--build-id=none -o gone "$WORKLOADS/noploop.c"
	here=$(pwd -P)
	# gone runs about three times as long as profgen-loops
	sbx record -q -e cpu-clock -F 999 -o nf.data -- sh -c "./gone 300 & '$W' 1 100 & wait" \
		>/dev/null 2>&1
	run -0 --separate-stderr sbx profgen -o auto.prof nf.data
	assert_regex "${stderr_lines[0]}" "^sbx profgen: profiling $here/gone \([0-9]+ samples\); other DSOs: (.*, )?profgen-loops \([0-9]+\)(, .*)?; --binary chooses another$"
	grep -q '^hot_a:' auto.prof
	# its file gone: not the next one (a profile of the wrong program), but an error
	rm gone auto.prof
	run -1 --separate-stderr sbx profgen -o auto.prof nf.data
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "${stderr_lines[0]}" "^sbx profgen: error: $here/gone \([0-9]+ samples\) is not here; give it with --binary$"
	[ ! -e auto.prof ]
	# --binary names the one to profile
	run -0 --separate-stderr sbx profgen --binary "$W" -o nf.prof nf.data
	grep -q '^loop1:' nf.prof
	assert_regex "${stderr_lines[-1]}" "; left out: (.*, )?[0-9]+ not the chosen binary(,|$| )"
}

@test "profgen: without --binary, a shared library with more samples is passed over, rebuilt or not; the program's file made unreadable is an error" {
	local here
	here=$(pwd -P)
	cat > hot.c <<-'EOF'
	void hot(long n) { volatile long x = 0; for (long i = 0; i < n; i++) x += i; }
	EOF
	cat > app.c <<-'EOF'
	#include <stdlib.h>
	void hot(long n);
	int main(int argc, char **argv)
	{
		long n = argc > 1 ? atol(argv[1]) : 200000000;
		volatile long y = 0;
		hot(n);
		for (long i = 0; i < n / 4; i++)
			y += i;
		return 0;
	}
	EOF
	cc -O1 -g -shared -fPIC -o libhot.so hot.c
	cc -O1 -g -o app app.c -L. -lhot -Wl,-rpath,"$here"
	# -N: no copy in the build-id cache, so the files at the paths are what there is
	sbx record -N -q -e cpu-clock -o a.data -- ./app >/dev/null
	# libhot.so took more samples, and so does libc for many programs: the program is app
	run -0 --separate-stderr sbx profgen -o a.prof a.data
	assert_regex "${stderr_lines[0]}" "^sbx profgen: profiling $here/app \\([0-9]+ samples\\); other DSOs: libhot\\.so \\([0-9]+\\)"
	grep -q '^main:' a.prof
	# the library rebuilt (upgraded, another host's): still app
	echo 'int more_code(void) { return 3; }' >> hot.c
	cc -O1 -g -shared -fPIC -o libhot.so hot.c
	run -0 --separate-stderr sbx profgen -o b.prof a.data
	assert_regex "${stderr_lines[0]}" "^sbx profgen: profiling $here/app "
	# the program's file emptied (a failed link): an error, not a profile of libhot or libc
	: > app
	run -1 --separate-stderr sbx profgen -o c.prof a.data
	assert_regex "${stderr_lines[0]}" "^sbx profgen: error: $here/app \\([0-9]+ samples\\) was rebuilt since the recording: the file there has no build-id, the recording's build-id [0-9a-f]+; give that build with --binary"
	[ ! -e c.prof ]
}

# the GNU build-id of ELF file $1, in hex
build_id_of() {
	readelf -n "$1" | awk '/Build ID:/ { print $3 }'
}

@test "profgen, report: a binary rebuilt in place is read from the build-id cache that sbx record filled, as perf reads it; without the cache, both build-ids are said" {
	local here old new
	mkdir home empty
	here=$(pwd -P)
	cp "$WORKLOADS/noploop.c" app.c
	cc -O2 -g -o app app.c
	old=$(build_id_of app)
	HOME=$PWD/home run -0 sbx record -q -e cpu-clock -F 999 -o a.data -- ./app 300
	# perf's layout: HOME/.debug/PATH/ID/elf, and .build-id/XX/REST linking to it
	cmp app "home/.debug$here/app/$old/elf"
	[ "$(readlink "home/.debug/.build-id/${old:0:2}/${old:2}")" = "../..$here/app/$old" ]
	HOME=$PWD/home run -0 sbx profgen -o before.prof a.data
	HOME=$PWD/home sbx report --stdio -i a.data -s dso,sym 2>/dev/null | grep -v '^#' > before.txt
	grep -q ' hot_a$' before.txt
	# a code change, rebuilt in place: another build-id at the same path
	echo 'int rebuilt_marker = 1;' >> app.c
	cc -O2 -g -o app app.c
	new=$(build_id_of app)
	[ "$old" != "$new" ]
	# with the cache: the recorded build, the same profile and report as before
	HOME=$PWD/home run -0 --separate-stderr sbx profgen -o after.prof a.data
	assert_regex "${stderr_lines[0]}" "^sbx profgen: profiling $here/app \(read from $here/home/\.debug/\.build-id/${old:0:2}/${old:2}/elf\) "
	cmp before.prof after.prof
	HOME=$PWD/home sbx report --stdio -i a.data -s dso,sym 2>/dev/null | grep -v '^#' > after.txt
	diff before.txt after.txt
	# perf finds the copy too: its rows name the same symbols
	HOME=$PWD/home perf report --stdio -i a.data -s dso,sym 2>/dev/null | grep -v '^#' |
		grep ' app ' > perf.txt
	grep -q '\[\.\] hot_a$' perf.txt
	# without it: an error naming the path and both build-ids, no profile of libc
	HOME=$PWD/empty run -1 --separate-stderr sbx profgen -o none.prof a.data
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "${stderr_lines[0]}" "^sbx profgen: error: $here/app \([0-9]+ samples\) was rebuilt since the recording: the file there has build-id $new, the recording's build-id $old; give that build with --binary \(sbx record keeps a copy in the build-id cache\)$"
	[ ! -e none.prof ]
	# report and script say it, where perf shows bare addresses without a word
	for c in report script; do
		HOME=$PWD/empty run -0 --separate-stderr sbx $c -i a.data
		assert_equal "${#stderr_lines[@]}" 1
		assert_equal "${stderr_lines[0]}" "sbx $c: warning: $here/app was rebuilt since the recording (the file there has build-id $new, the recording's build-id $old) and the build-id cache has no copy: its samples show as addresses"
	done
	# -N: nothing copied
	mkdir home2
	HOME=$PWD/home2 run -0 sbx record -N -q -e cpu-clock -F 999 -o b.data -- ./app 10
	[ ! -e home2/.debug ]
}

@test "profgen: IP-only profiles: bodies within their totals, heads from entry blocks; --pid keeps one process" {
	run -0 --separate-stderr sbx profgen --binary "$W" -o two.prof "$D/two.data"
	# loop1:TOTAL:HEAD — a total, and a head from the entry block that ran once: next to none
	total=$(awk -F: '/^loop1:/ { print $2 }' two.prof)
	head=$(awk -F: '/^loop1:/ { print $3 }' two.prof)
	[ "$total" -gt 100 ]
	[ "$head" -lt $((total / 10)) ]
	# every body count is at most its function's total
	python3 - two.prof <<-'EOF'
	import sys
	total = None
	for line in open(sys.argv[1]):
	    if not line.startswith(" "):
	        total = int(line.split(":")[-2])
	    elif line.startswith(" ") and not line.startswith("  "):
	        n = line.split(": ")[1].split()[0]
	        if n.isdigit():
	            assert int(n) <= total, line
	EOF
	# --pid keeps one process: only its loop, the other's samples counted as left out
	pid=$(perf script -i "$D/two.data" -F pid,ip,sym 2>/dev/null | awk '$3 == "loop2" { print $1; exit }')
	[ -n "$pid" ]
	run -0 --separate-stderr sbx profgen --binary "$W" --pid "$pid" -o one.prof "$D/two.data"
	grep -q '^loop2:' one.prof
	run -1 grep -q '^loop1:' one.prof
	assert_regex "${stderr_lines[-1]}" '[0-9]+ other pid'
}

# loop1's instructions as "ADDRESS MNEMONIC [TARGET]", from objdump
loop1_insns() {
	objdump -d --no-show-raw-insn "$W" | sed -n '/<loop1>:/,/^$/p' |
		awk 'NR > 1 && NF { sub(":", "", $1); t = ""; if ($2 ~ /^j/ && $3 ~ /^[0-9a-f]+$/) t = $3
			print $1, $2, t }'
}

@test "profgen: IP-only samples made by hand: block counts, line 0 counted, zeros only where no sampled block leads, the head from the entry block" {
	local fn entry je head body after line0 n_entry n_body
	# loop1: an entry block up to its je, a line-0 preheader, the loop (imul, add, jne), the exit
	loop1_insns > l.insns
	cat l.insns
	fn=$(awk 'NR == 1 { print $1 }' l.insns)
	je=$(awk '$2 ~ /^j/ { print $1; exit }' l.insns)
	head=$(awk '$2 == "imul" { print $1 }' l.insns)		# the loop's first instruction
	body=$(awk '$2 ~ /^j/ && $3 != "" { t = $3 } END { print t }' l.insns)	# the jne's target
	after=$(awk '$2 == "ret" { print p } { p = $1 }' l.insns)	# the exit block's first
	line0=$(awk -v j="$je" 'f { print $1; exit } $1 == j { f = 1 }' l.insns)
	[ "$head" = "$body" ]
	n_entry=$(awk -v j="$je" '{ n++ } $1 == j { print n; exit }' l.insns)
	n_body=$(awk -v h="$head" '$1 == h { f = 1 } f { n++ } f && $2 ~ /^j/ { print n; exit }' l.insns)
	[ "$(llvm-symbolizer-14 --obj="$W" "0x$line0" | sed -n 2p)" = "$WORKLOADS/profgen-loops.c:0:0" ] ||
		llvm-symbolizer-14 --obj="$W" "0x$line0" | sed -n 2p | grep -q ':0:'
	# 600 samples in the loop, all on its first instruction: every line of the loop gets
	# the block's count, 600 over its instructions
	printf '600 loop1+0x%x\n' $((0x$head - 0x$fn)) | "$GENLBR" -g -o a.data -b "$W"
	run -0 --separate-stderr sbx profgen --binary "$W" -o a.prof a.data
	cat a.prof
	loop=$(( (600 + n_body / 2) / n_body ))
	# loop1 is declared on line 27: its entry block is on lines 28 and 29 (offsets 1 and
	# 2, discriminator 2), the loop on line 29 (discriminators 2 and 4), the exit on 30
	grep -qxE "loop1:600:0" a.prof
	grep -qxE " 2\.4: $loop" a.prof
	grep -qxE " 2\.2: $loop" a.prof
	# the entry block had no sample and nothing leads into it but the calls: 0 (cold)
	grep -qxE ' 1: 0' a.prof
	# the exit (offset 3): no sample, but the loop falls into it: left out for clang to
	# infer, not a 0 (a small block after a hot one: its samples skid past it)
	run -1 grep -qE '^ 3: ' a.prof
	# samples on the line-0 preheader count in the total, in no line; the entry block's
	# 30 + 30 make its lines' count and the head: 60 over its instructions
	printf '300 loop1+0x%x\n30 loop1\n30 loop1+0x%x\n' $((0x$line0 - 0x$fn)) $((0x$je - 0x$fn)) |
		"$GENLBR" -g -o b.data -b "$W"
	run -0 --separate-stderr sbx profgen --binary "$W" -o b.prof b.data
	cat b.prof
	assert_regex "${stderr_lines[-1]}" '^sbx profgen: 360 samples, 360 in the profile \(100\.0%\) \(IP samples\)$'
	assert_regex "$stderr" 'warning: 83\.3% of the samples in .*/profgen-loops fell in basic blocks of no line \(line 0 only\)'
	entry=$(( (60 + n_entry / 2) / n_entry ))
	grep -qxE "loop1:360:$entry" b.prof
	grep -qxE " 1: $entry" b.prof
	grep -qxE " 2\.2: $entry" b.prof
	# the loop (2.4 is its own): nothing in it, and the sampled preheader leads into it:
	# left out
	run -1 grep -qE '^ 2\.4: ' b.prof
	# clang 14's entry count is the head plus one (without profi, which is off by default)
	run -0 --separate-stderr clang -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=b.prof \
		-S -emit-llvm -o b.ll "$WORKLOADS/profgen-loops.c"
	[ -z "$stderr" ] || { echo "clang: $stderr"; return 1; }
	local md
	md=$(awk '/^define .*@loop1\(/ { match($0, /!prof ![0-9]+/); print substr($0, RSTART + 6, RLENGTH - 6) }' b.ll)
	grep -qE "^$md = !\{!\"function_entry_count\", i64 $((entry + 1))\}" b.ll
	# without DWARF (the symbols name the functions): the most samples of an entry-block
	# instruction, and one line
	strip -g -o nodebug "$W"
	run -0 --separate-stderr sbx profgen --binary nodebug -o sym.prof b.data
	run -0 grep -E '^loop1:360:30$' sym.prof
	# leaf had no sample: no profile
	run -1 grep -q '^leaf:' b.prof
}

@test "profgen: IP-only profiles likely to mislead are said, with the fix: no declaration lines, no discriminators, samples on line 0, too few samples" {
	local zero line fn
	# -gline-tables-only without -fdebug-info-for-profiling: no functions in the DWARF
	# where nothing was inlined; DW_TAG_subprogram without DW_AT_decl_line where it was
	clang -O2 -gline-tables-only -o tables "$WORKLOADS/noploop.c" 2>/dev/null
	sbx record -q -e cpu-clock -F 4000 -o t.data -- ./tables 300 >/dev/null
	run -0 --separate-stderr sbx profgen --binary tables -o t.prof t.data
	assert_regex "$stderr" "sbx profgen: warning: (.*/)?tables has line tables but no DWARF functions \(DW_TAG_subprogram\), as clang -gline-tables-only builds it without -fdebug-info-for-profiling: .*\(rebuild with -fdebug-info-for-profiling\)"
	clang -O2 -gline-tables-only -o inl "$WORKLOADS/profgen-loops.c"
	llvm-dwarfdump-14 --debug-info inl | grep -q DW_TAG_subprogram
	run -1 grep -q DW_AT_decl_line < <(llvm-dwarfdump-14 --debug-info inl)
	sbx record -q -e cpu-clock -F 4000 -o i.data -- sh -c './inl calls 30000000; true' >/dev/null
	run -0 --separate-stderr sbx profgen --binary inl -o i.prof i.data
	assert_regex "$stderr" "sbx profgen: warning: [0-9]+% of the samples in (.*/)?inl are in functions without a declaration line \(DW_AT_decl_line\), so their line offsets are not the ones clang looks up: rebuild with -fdebug-info-for-profiling"
	# -g alone: lines have no discriminators (at 1000 samples or more)
	clang -O2 -g -o plain "$WORKLOADS/noploop.c" 2>/dev/null
	sbx record -q -e cpu-clock -F 4000 -o p.data -- ./plain 300 >/dev/null
	run -0 --separate-stderr sbx profgen --binary plain -o p.prof p.data
	if [ "$(sed -n 's/^sbx profgen: \([0-9]*\) samples, \([0-9]*\) in the profile.*/\2/p' <<< "$stderr")" -ge 1000 ]; then
		assert_regex "$stderr" "sbx profgen: warning: no sampled line of (.*/)?plain has a discriminator: was it built without -fdebug-info-for-profiling\?"
	fi
	# built as a profile wants it: neither
	clang -O2 -g -gline-tables-only -fdebug-info-for-profiling -o good "$WORKLOADS/noploop.c" 2>/dev/null
	sbx record -q -e cpu-clock -F 4000 -o g.data -- ./good 900 >/dev/null
	run -0 --separate-stderr sbx profgen --binary good -o g.prof g.data
	run -1 grep -q 'declaration line\|discriminator\|line 0\|hottest' <<< "$stderr"
	# half of loop1's samples in a block of line 0 only (its preheader): said, with the share
	zero=$(llvm-dwarfdump-14 --debug-line "$W" | awk '$1 ~ /^0x/ && $2 == 0 { print $1 }' |
		while read -r a; do [ "$(llvm-symbolizer-14 --obj="$W" "$a" | head -1)" = loop1 ] && { echo "$a"; break; }; done)
	line=$(llvm-dwarfdump-14 --debug-line "$W" | awk '$1 ~ /^0x/ && $2 != 0 { print $1 }' |
		while read -r a; do [ "$(llvm-symbolizer-14 --obj="$W" "$a" | head -1)" = loop1 ] && { echo "$a"; break; }; done)
	fn=$(nm "$W" | awk '$3 == "loop1" { print $1 }')
	[ -n "$zero" ] && [ -n "$line" ] && [ -n "$fn" ]
	printf '600 loop1+0x%x\n600 loop1+0x%x\n' $((zero - 0x$fn)) $((line - 0x$fn)) | "$GENLBR" -g -o z.data -b "$W"
	run -0 --separate-stderr sbx profgen --binary "$W" -o z.prof z.data
	assert_regex "$stderr" "sbx profgen: warning: 50\.0% of the samples in .*/profgen-loops fell in basic blocks of no line \(line 0 only\): they count in their functions' totals but in no line's"
	run -1 grep -q 'hottest' <<< "$stderr"
	# a short recording: the hottest function has too few samples
	printf '40 loop1+0x%x\n' $((line - 0x$fn)) | "$GENLBR" -g -o few.data -b "$W"
	run -0 --separate-stderr sbx profgen --binary "$W" -o few.prof few.data
	assert_regex "$stderr" "sbx profgen: warning: the hottest function, loop1, has 40 samples: too few for counts of its lines that are more than noise; record longer, at a higher -F \(10000\), or give several recordings \(at least 500 samples in it\)"
}

# "FUNCTION MOST" of a gcc -fdump-ipa-afdo dump: each function's largest block count read
afdo_counts() {
	awk '/^[A-Za-z_].* \(/ { match($0, /[A-Za-z_0-9]+ \(/); f = substr($0, RSTART, RLENGTH - 2) }
		/\[count: [0-9]+\]/ { match($0, /count: [0-9]+/); c = substr($0, RSTART + 7, RLENGTH - 7) + 0
			if (!(f in m) || c > m[f]) m[f] = c }
		END { for (k in m) print k, m[k] }' "$1" | sort
}

@test "profgen: --format gcov writes GCC 12's AutoFDO profile: gcc -fauto-profile reads it without a word, with the counts of the text profile" {
	local a b
	gcc -O2 -g -o gnop "$WORKLOADS/noploop.c"
	sbx record -q -e cpu-clock -F 4000 -o g.data -- ./gnop 300 >/dev/null
	run -0 --separate-stderr sbx profgen --binary gnop --format gcov -o g.afdo g.data
	run -0 --separate-stderr sbx profgen --binary gnop -o g.txt g.data
	# gcc is llvm-profgen's name for it
	run -0 --separate-stderr sbx profgen --binary gnop --format gcc -o gcc.afdo g.data
	cmp g.afdo gcc.afdo
	# the header: "gcda" as a little-endian word, version 2, a word 0, the name table's tag
	[ "$(od -An -tx1 -N16 g.afdo | tr -d ' \n')" = 616463670200000000000000000000aa ]
	run -0 --separate-stderr gcc -O2 -fauto-profile=g.afdo -fdump-ipa-afdo=g.dump -c \
		"$WORKLOADS/noploop.c" -o g.o
	[ -z "$stderr" ] || { echo "gcc: $stderr"; return 1; }
	afdo_counts g.dump > got
	cat got
	# each hot function's largest block count is the text profile's largest line count
	# of it (GCC keeps a block's largest line; its propagation may raise a count)
	for f in hot_a hot_b; do
		a=$(awk -v f="$f" '$1 == f { print $2 }' got)
		b=$(awk -v f="$f:" '/^[^ ]/ { on = index($0, f) == 1; next } on { if ($2 > m) m = $2 } END { print m + 0 }' g.txt)
		[ "$b" -gt 0 ]
		[ "$a" -ge "$b" ]
		[ "$a" -le $((b + b / 10 + 2)) ]
	done
	# hot_a runs twice as long as hot_b: its blocks count twice as much (within a third)
	a=$(awk '$1 == "hot_a" { print $2 }' got)
	b=$(awk '$1 == "hot_b" { print $2 }' got)
	[ $((3 * a)) -ge $((4 * b)) ]
	[ $((3 * a)) -le $((8 * b)) ]
	# a profile GCC cannot match (another program's) changes nothing and says nothing
	run -0 --separate-stderr gcc -O2 -fauto-profile=g.afdo -c "$WORKLOADS/sysloop.c" -o s.o
	[ -z "$stderr" ]
	# the usage names the formats
	run -2 --separate-stderr sbx profgen --binary gnop --format gcda -o x g.data
	assert_regex "$stderr" "--format must be text, extbinary or gcov, not 'gcda'"
}

@test "profgen: call chains give call targets at the call sites; --ignore-stack-samples leaves them out" {
	# 100M iterations, some 0.4 s: over 1,000 samples, a fifth of them under tail (46
	# samples at 3M let a run see none)
	run -0 --separate-stderr sbx record -q -g -e cpu-clock -F 4000 -o g.data -- "$W" calls 100000000
	run -0 --separate-stderr sbx profgen --binary "$W" -o g.prof g.data
	# work calls leaf at one line and tail at another
	run -0 grep -E '^ [0-9]+(\.[0-9]+)?: [0-9]+ leaf:[0-9]+$' g.prof
	run -0 grep -E '^ [0-9]+(\.[0-9]+)?: [0-9]+ tail:[0-9]+$' g.prof
	run -0 --separate-stderr sbx profgen --ignore-stack-samples --binary "$W" -o ng.prof g.data
	run -1 grep -E ' (leaf|tail):[0-9]+$' ng.prof
}

@test "profgen: call-chain returns that no call instruction ends at are left out, and said" {
	local work_at ret_at off
	# the return address of work's call of leaf, from objdump
	work_at=$(nm "$W" | awk '$3 == "work" { print $1 }')
	ret_at=$(objdump -d --no-show-raw-insn "$W" |
		awk '/<work>:$/ { f = 1 } f && /call.*<leaf>/ { getline; sub(":", "", $1); print $1; exit }')
	[ -n "$work_at" ] && [ -n "$ret_at" ]
	off=$(printf '0x%x' $((0x$ret_at - 0x$work_at)))
	printf '200 leaf+0x1 work+%s\n' "$off" | "$GENLBR" -g -o good.data -b "$W"
	run -0 --separate-stderr sbx profgen --show-detailed-warning --binary "$W" -o good.prof good.data
	grep -qE '^ [0-9.]+: [0-9]+ leaf:200$' good.prof
	[[ $stderr != *"no call instruction"* ]]
	# no call ends at work+0x1: work's first byte (not a call) and the padding before work
	printf '200 leaf+0x1 work+%s\n100 leaf+0x1 work+0x1\n' "$off" | "$GENLBR" -g -o bad.data -b "$W"
	run -0 --separate-stderr sbx profgen --binary "$W" -o bad.prof bad.data
	assert_regex "$stderr" 'warning: 100 of 300 call-chain returns into [^ ]*profgen-loops follow no call instruction and were left out: was it built without frame pointers\?'
	grep -qE '^ [0-9.]+: [0-9]+ leaf:200$' bad.prof
	[ "$(grep -cE ' leaf:[0-9]+$' bad.prof)" -eq 1 ]
	# a few (fewer than a quarter): said only with --show-detailed-warning, with no advice
	printf '200 leaf+0x1 work+%s\n10 leaf+0x1 work+0x1\n' "$off" | "$GENLBR" -g -o few.data -b "$W"
	run -0 --separate-stderr sbx profgen --binary "$W" -o few.prof few.data
	[[ $stderr != *"no call instruction"* ]]
	run -0 --separate-stderr sbx profgen --show-detailed-warning --binary "$W" -o few.prof few.data
	assert_regex "$stderr" 'warning: 10 of 210 call-chain returns into [^ ]*profgen-loops follow no call instruction and were left out'$'\n'
}

@test "profgen: branch stacks: the profile of llvm-profgen 19, byte for byte, from perf.data and perf script" {
	[ -s "$D/lbr.data" ] || { echo "swlbr could not trace"; return 1; }
	run -0 "$PROFGEN19" --binary="$W" --perfdata="$D/lbr.data" --output=ref.prof --format=text
	run -0 --separate-stderr sbx profgen --binary "$W" -o ours.prof "$D/lbr.data"
	assert_regex "${stderr_lines[-1]}" '\(from branch stacks\)$'
	run -0 diff ref.prof ours.prof
	# what it holds: loops, calls into leaf (head samples), the tail call, the inlined mix
	grep -qE '^leaf:[0-9]+:[1-9][0-9]*$' ours.prof
	grep -qE '^ [0-9.]+: [0-9]+ leaf:[0-9]+$' ours.prof
	grep -qE '^ [0-9.]+: mix:[0-9]+$' ours.prof
	# the same text through perf script
	perf script -i "$D/lbr.data" -F ip,brstack --show-mmap-events > lbr.script 2>/dev/null
	run -0 "$PROFGEN19" --binary="$W" --perfscript=lbr.script --output=ref2.prof --format=text
	run -0 --separate-stderr sbx profgen --binary "$W" --perfscript lbr.script -o ours2.prof
	run -0 diff ref2.prof ours2.prof
	run -0 diff ours.prof ours2.prof
	# the same samples aggregated, each unique line once after its count: the same profile
	python3 - lbr.script > agg.script <<-'PY'
	import collections, sys
	lines = open(sys.argv[1]).read().splitlines()
	n = collections.Counter(l for l in lines if l.strip() and "PERF_RECORD_" not in l)
	print("\n".join(l for l in lines if "PERF_RECORD_" in l))
	for l, c in n.items():
	    print(c)
	    print(l)
	PY
	[ "$(wc -l < agg.script)" -lt "$(wc -l < lbr.script)" ]
	run -0 --separate-stderr sbx profgen --binary "$W" --perfscript agg.script -o agg.prof
	run -0 diff ours2.prof agg.prof
	# a count past reason is a bad line, not a loop of 2^64
	printf '%s\n' "$(grep PERF_RECORD_ lbr.script)" 99999999999999999999 "$(grep -v PERF_RECORD_ lbr.script | head -1)" > big.script
	run --separate-stderr timeout 20 "$SBX" profgen --binary "$W" --perfscript big.script -o big.prof
	[ "$status" -le 1 ]	# 124: the timeout
	assert_regex "$stderr" '1 lines are neither samples nor events'
}

@test "profgen: --skip-symbolization writes llvm-profgen's unsymbolized profile; --unsymbolized-profile reads it" {
	[ -s "$D/lbr.data" ] || { echo "swlbr could not trace"; return 1; }
	run -0 "$PROFGEN19" --binary="$W" --perfdata="$D/lbr.data" --skip-symbolization --output=ref.raw
	run -0 --separate-stderr sbx profgen --binary "$W" --skip-symbolization -o ours.raw "$D/lbr.data"
	run -0 diff ref.raw ours.raw
	run -0 "$PROFGEN19" --binary="$W" --perfdata="$D/lbr.data" --output=ref.prof --format=text
	run -0 --separate-stderr sbx profgen --binary "$W" --unsymbolized-profile ours.raw -o back.prof
	run -0 diff ref.prof back.prof
	# a damaged one: the line is named
	sed '2s/.*/oops/' ours.raw > bad.raw
	run -1 --separate-stderr sbx profgen --binary "$W" --unsymbolized-profile bad.raw -o x.prof
	assert_regex "$stderr" "bad.raw:2: malformed line 'oops'"
	[ ! -e x.prof ]
}

@test "profgen: --skip-symbolization of IP samples: one-instruction ranges, which llvm-profgen 19 reads as sbx does" {
	local work
	# every instruction of work sampled, each a different number of times
	work=$(nm "$W" | awk '$3 == "work" { print $1 }')
	[ -n "$work" ]
	objdump -d --no-show-raw-insn "$W" | sed -n '/<work>:/,/^$/p' |
		awk 'NR > 1 && NF { sub(":", "", $1); print NR, $1 }' |
		while read -r n a; do printf '%d work+0x%x\n' "$n" $((0x$a - 0x$work)); done > ip.in
	[ "$(wc -l < ip.in)" -gt 10 ]
	"$GENLBR" -g -o ip.data -b "$W" < ip.in
	run -0 --separate-stderr sbx profgen --binary "$W" --skip-symbolization -o ip.raw ip.data
	assert_regex "${stderr_lines[-1]}" "^sbx profgen: ([0-9]+) samples, \\1 in the raw counts \\(100.0%\\) \\(IP samples\\)$"
	# START-START:COUNT, one a sampled instruction, with its count; and no branches
	python3 - ip.raw ip.in <<-'EOF'
	import sys
	lines = open(sys.argv[1]).read().split("\n")
	r = int(lines[0])
	counts = sorted(int(l.split()[0]) for l in open(sys.argv[2]))
	got = []
	for l in lines[1:r + 1]:
	    span, n = l.split(":")
	    a, b = span.split("-")
	    assert a == b, l
	    got.append(int(n))
	assert sorted(got) == counts, (got, counts)
	assert lines[r + 1:] == ["0", ""], lines[r + 1:]
	EOF
	# llvm-profgen 19 reads them (it refuses the perf.data itself), and sbx
	# reads them as it does
	run -0 "$PROFGEN19" --binary="$W" --unsymbolized-profile=ip.raw --format=text --output=ref.prof
	run -0 --separate-stderr sbx profgen --binary "$W" --unsymbolized-profile ip.raw -o back.prof
	run -0 diff ref.prof back.prof
	# the lines of sbx's own IP-only profile are block counts, not llvm-profgen's
	# per-line maxima of one-instruction ranges: every instruction was sampled, so
	# each line of a block with several instructions has less than its most
	run -0 --separate-stderr sbx profgen --binary "$W" -o ip.prof ip.data
	[ "$(awk '/^work:/ { f = 1; next } /^[^ ]/ { f = 0 } f && /^ [0-9.]+: [0-9]+$/ { if ($2 > m) m = $2 } END { print m + 0 }' ip.prof)" -lt \
		"$(awk '/^work:/ { f = 1; next } /^[^ ]/ { f = 0 } f && /^ [0-9.]+: [0-9]+$/ { if ($2 > m) m = $2 } END { print m + 0 }' ref.prof)" ]
}

@test "profgen: branch stacks made by hand: heads, call targets and the tail call known in advance" {
	local work_call tail_jmp
	work_call=$(objdump -d --no-show-raw-insn "$W" | sed -n '/<work>:/,/^$/p' |
		awk '/call.*<leaf>/ { sub(":", "", $1); print $1; exit }')
	tail_jmp=$(objdump -d --no-show-raw-insn "$W" | sed -n '/<tail>:/,/^$/p' |
		awk '/jmp.*<leaf>/ { sub(":", "", $1); print $1; exit }')
	work=$(nm "$W" | awk '$3 == "work" { print $1 }')
	tail=$(nm "$W" | awk '$3 == "tail" { print $1 }')
	# 3 calls from work into leaf, 2 tail jumps from tail into leaf, 1 entry into main from outside
	printf '3 work+0x%x>leaf\n2 tail+0x%x>leaf\n1 0x7f0000001000>main\n' \
		$((0x$work_call - 0x$work)) $((0x$tail_jmp - 0x$tail)) | "$GENLBR" -o hand.data -b "$W"
	run -0 --separate-stderr sbx profgen --binary "$W" -o hand.prof hand.data
	# by hand: leaf entered 5 times; main once from outside; each call site its calls
	run -0 cat hand.prof
	assert_line 'leaf:0:5'
	assert_line 'main:0:1'
	assert_line 'tail:0:0'
	assert_line 'work:0:0'
	assert_line --regexp '^ [0-9]+: 2 leaf:2$'
	assert_line --regexp '^ [0-9]+: 3 leaf:3$'
	[ "${#lines[@]}" -eq 6 ]
	# and llvm-profgen 19 agrees
	run -0 "$PROFGEN19" --binary="$W" --perfdata=hand.data --output=ref.prof --format=text
	run -0 diff ref.prof hand.prof
}

@test "profgen: calls made inside an inlined function: call targets at the inlined call site, from branch stacks and from call chains" {
	local dis calls outer
	dis=$(objdump -d --no-show-raw-insn "$W" | sed -n '/<outer>:/,/^$/p')
	# outer's two calls of leaf, both on one line of via (inlined into outer)
	calls=$(awk '/call.*<leaf>/ { sub(":", "", $1); print $1 }' <<< "$dis")
	outer=$(nm "$W" | awk '$3 == "outer" { print $1 }')
	[ "$(wc -w <<< "$calls")" -eq 2 ] && [ -n "$outer" ]
	set -- $calls
	# branch stacks: 4 calls from the first, 6 from the second; llvm-profgen 19 as the judge
	printf '4 outer+0x%x>leaf\n6 outer+0x%x>leaf\n' $((0x$1 - 0x$outer)) $((0x$2 - 0x$outer)) |
		"$GENLBR" -o inl.data -b "$W"
	run -0 --separate-stderr sbx profgen --binary "$W" -o inl.prof inl.data
	run -0 "$PROFGEN19" --binary="$W" --perfdata=inl.data --output=ref.prof --format=text
	run -0 diff ref.prof inl.prof
	# by hand: via's callsite in outer holds both calls, the second one's discriminator apart
	run -0 cat inl.prof
	assert_line 'leaf:0:10'
	assert_line --regexp '^ [0-9]+(\.[0-9]+)?: via:0$'
	assert_line --regexp '^  ([0-9]+): 0 leaf:4$'
	assert_line --regexp '^  [0-9]+\.[0-9]+: 0 leaf:6$'
	# IP-only with call chains: the same call sites from the return addresses (7 and 5 calls)
	local r1 r2
	# the return address of a call: the address of the instruction after it
	after() { awk -v c="$1:" '$1 == c { getline; sub(":", "", $1); print $1 }' <<< "$dis"; }
	r1=$(after "$1")
	r2=$(after "$2")
	printf '7 leaf outer+0x%x\n5 leaf outer+0x%x\n' $((0x$r1 - 0x$outer)) $((0x$r2 - 0x$outer)) |
		"$GENLBR" -g -o inlg.data -b "$W"
	run -0 --separate-stderr sbx profgen --binary "$W" -o inlg.prof inlg.data
	run -0 cat inlg.prof
	# (leaf's head: the 12 samples of its entry block over its instructions)
	assert_line --regexp '^leaf:12:[1-9][0-9]*$'
	assert_line --regexp '^ [0-9]+(\.[0-9]+)?: via:0$'
	assert_line --regexp '^  [0-9]+: 0 leaf:7$'
	assert_line --regexp '^  [0-9]+\.[0-9]+: 0 leaf:5$'
}

@test "profgen: branch stacks of samples taken outside the binary count; --show-detailed-warning says the refused ranges" {
	local work last call
	work=$(nm "$W" | awk '$3 == "work" { print $1 }')
	last=$(objdump -d --no-show-raw-insn "$W" | sed -n '/<work>:/,/^$/p' |
		awk '/\tj/ { sub(":", "", $1); print $1; exit }')
	call=$(objdump -d --no-show-raw-insn "$W" | sed -n '/<work>:/,/^$/p' |
		awk '/call.*<leaf>/ { getline; sub(":", "", $1); print $1; exit }')
	[ -n "$work" ] && [ -n "$last" ] && [ -n "$call" ]
	# every sample's IP (its newest branch's target) is in no map; its older branch enters
	# work, whose entry block it runs. The range of the 3 of the second line runs across
	# work's call of leaf: refused
	printf '5 work+0x%x>0x7f0000001000 0x7f0000002000>work\n3 work+0x%x>0x7f0000001000 0x7f0000002000>work\n' \
		$((0x$last - 0x$work)) $((0x$call - 0x$work)) | "$GENLBR" -o out.data -b "$W"
	run -0 --separate-stderr sbx profgen --binary "$W" -o out.prof out.data
	run -0 grep -E '^ 1: 5$' out.prof
	[[ $stderr != *"range samples refused"* ]]
	run -0 "$PROFGEN19" --binary="$W" --perfdata=out.data --output=ref.prof --format=text
	run -0 diff ref.prof out.prof
	run -0 --separate-stderr sbx profgen --show-detailed-warning --binary "$W" -o out.prof out.data
	grep -qx 'sbx profgen: 3 of 8 range samples refused (not on instruction boundaries, or across an unconditional branch)' <<< "$stderr"
	# the raw counts too: llvm-profgen 19's, byte for byte
	run -0 --separate-stderr sbx profgen --skip-symbolization --binary "$W" -o out.raw out.data
	[[ ${stderr_lines[-1]} == *"(from branch stacks)" ]]
	run -0 "$PROFGEN19" --binary="$W" --perfdata=out.data --skip-symbolization --output=ref.raw
	run -0 diff ref.raw out.raw
}

@test "profgen: a real LBR recording from another machine, matched by build-id: a symbol-level profile" {
	local lbr=$DATA/lbr
	run -0 --separate-stderr sbx profgen --binary "$lbr/propeller_sample_1.bin" -o real.prof \
		"$lbr/propeller_sample_1.perfdata"
	assert_regex "$stderr" "has no DWARF for its sampled code"
	assert_regex "${stderr_lines[-1]}" '^sbx profgen: 3740 samples, 3733 in the profile'
	run -0 cat real.prof
	assert_line --regexp '^main:[0-9]+:0$'
	assert_line --regexp '^compute_flag:[0-9]+:[1-9][0-9]*$'
	assert_line --regexp '^ 0: [0-9]+ compute_flag:[0-9]+$'
	run -0 "$PROFDATA19" show --sample real.prof
}

@test "profgen: llvm-profdata 14 and 19 read the text and extbinary profiles alike" {
	[ -s "$D/lbr.data" ] || { echo "swlbr could not trace"; return 1; }
	[ -s "$D/two.data" ] || { echo "perf record could not record"; return 1; }
	# from branch stacks, and from IP samples
	for data in "$D/lbr.data" "$D/two.data"; do
		run -0 --separate-stderr sbx profgen --binary "$W" -o p.txt "$data"
		run -0 --separate-stderr sbx profgen --binary "$W" --format extbinary -o p.ext "$data"
		for pd in "$PROFDATA14" "$PROFDATA19"; do
			run -0 "$pd" show --sample p.txt
			show_txt=$output
			run -0 "$pd" show --sample p.ext
			assert_equal "$output" "$show_txt"
			# extbinary exactly as llvm-profdata writes it, and back to the same text
			run -0 "$pd" merge --sample --extbinary p.txt -o ref.ext
			run -0 cmp ref.ext p.ext
			run -0 "$pd" merge --sample --text p.ext -o back.txt
			run -0 diff p.txt back.txt
		done
	done
}

@test "profgen: clang -fprofile-sample-use takes the profile: entry counts and branch weights, no warning" {
	local data fn
	[ -s "$D/lbr.data" ] || { echo "swlbr could not trace"; return 1; }
	[ -s "$D/two.data" ] || { echo "perf record could not record"; return 1; }
	# from branch stacks (work is hot), and from IP samples (loop1 is)
	for case in lbr:work two:loop1; do
		data=$D/${case%%:*}.data fn=${case##*:}
		run -0 --separate-stderr sbx profgen --binary "$W" -o p.txt "$data"
		run -0 --separate-stderr sbx profgen --binary "$W" --format extbinary -o p.ext "$data"
		for p in p.txt p.ext; do
			run -0 --separate-stderr clang -O2 -g -fdebug-info-for-profiling \
				-fprofile-sample-use="$p" -S -emit-llvm -o out.ll "$WORKLOADS/profgen-loops.c"
			[ -z "$stderr" ] || { echo "clang: $stderr"; return 1; }
			grep -qE "^define .*@$fn\\(.*!prof ![0-9]+" out.ll
			grep -qE '!"function_entry_count", i64 [1-9]' out.ll
			# the weights of a branch of the hot function
			awk "/^define .*@$fn\\(/ { f = 1 } f && /^}/ { exit } f" out.ll |
				grep -oE '!prof ![0-9]+' | sed 's/!prof //' | sort -u > refs
			[ -s refs ]
			grep -qE "^($(paste -sd'|' refs)) = !\\{!\"branch_weights\"" out.ll
		done
	done
}

@test "profgen: bad input: one clear error, exit 1, no output file" {
	run -1 --separate-stderr sbx profgen -o x.prof "$DATA/snippets/add-chain.s"
	assert_regex "$stderr" "not a perf.data"
	head -c 3000 "$D/lbr.data" > cut.data
	run -1 --separate-stderr sbx profgen --binary "$W" -o x.prof cut.data
	assert_regex "$stderr" "truncated|ends"
	run -1 --separate-stderr sbx profgen --binary /bin/true -o x.prof "$D/two.data"
	assert_regex "$stderr" "/bin/true: no sample of the recording falls in it"
	# one binary given twice, by two names
	run -1 --separate-stderr sbx profgen --binary "$W" --binary "$WORKLOADS/../workloads/profgen-loops" \
		-o x.prof "$D/two.data"
	assert_regex "$stderr" "error: .*profgen-loops and .*profgen-loops both match .*: give it once"
	# a rebuilt binary of the same name: its build-id differs
	mkdir rebuilt
	clang -O1 -g -o rebuilt/profgen-loops "$WORKLOADS/profgen-loops.c"
	run -1 --separate-stderr sbx profgen --binary rebuilt/profgen-loops -o x.prof "$D/two.data"
	assert_regex "$stderr" "rebuilt/profgen-loops: build-id [0-9a-f]+, but the recording's .*/profgen-loops has build-id [0-9a-f]+ .*--ignore-build-id"
	# which matches it by name, and says so
	run -0 --separate-stderr sbx profgen --binary rebuilt/profgen-loops --ignore-build-id \
		-o y.prof "$D/two.data"
	assert_equal "${stderr_lines[0]}" "sbx profgen: rebuilt/profgen-loops matched by name (--ignore-build-id)"
	[ -s y.prof ]
	# a stripped copy
	mkdir stripped
	cp "$W" stripped/ && strip stripped/profgen-loops
	run -1 --separate-stderr sbx profgen --binary stripped/profgen-loops --ignore-build-id \
		-o x.prof "$D/two.data"
	assert_regex "$stderr" "stripped/profgen-loops is stripped"
	assert_regex "${stderr_lines[-1]}" "no function of stripped/profgen-loops got samples: nothing to write"
	# an empty recording
	: | "$GENLBR" -o empty.data -b "$W"
	run -1 --separate-stderr sbx profgen --binary "$W" -o x.prof empty.data
	assert_regex "$stderr" "no samples"
	[ ! -e x.prof ]
	run -0 ls -A
	refute_output --partial x.prof
	refute_output --partial .sbx-tmp-
	# usage errors
	run -2 --separate-stderr sbx profgen --format compbinary "$D/two.data"
	assert_regex "$stderr" "--format must be text, extbinary or gcov, not 'compbinary'"
	run -2 --separate-stderr sbx profgen --unsymbolized-profile x.raw "$D/two.data"
}

@test "profgen: several inputs make one profile: their counts add up" {
	run -0 --separate-stderr sbx record -q -e cpu-clock -F 999 -o a.data -- "$W" 1 100
	run -0 --separate-stderr sbx record -q -e cpu-clock -F 999 -o b.data -- "$W" 2 100
	run -0 --separate-stderr sbx profgen --binary "$W" -o ab.prof a.data b.data
	grep -q '^loop1:' ab.prof
	grep -q '^loop2:' ab.prof
	run -0 --separate-stderr sbx profgen --json --binary "$W" a.data
	na=$(echo "$output" | jq .samples)
	run -0 --separate-stderr sbx profgen --json --binary "$W" b.data
	nb=$(echo "$output" | jq .samples)
	run -0 --separate-stderr sbx profgen --json --binary "$W" a.data b.data
	[ "$(echo "$output" | jq .samples)" -eq $((na + nb)) ]
}

@test "profgen: several --binary make one profile; --json names each function's binary" {
	local N=$WORKLOADS/noploop
	perf record -q -e cpu-clock -F 999 -o mix.data -- sh -c "'$W' 1 300 & '$N' 300 & wait" \
		>/dev/null 2>&1
	run -0 --separate-stderr sbx profgen --binary "$W" --binary "$N" -o mix.prof mix.data
	grep -q '^loop1:' mix.prof
	grep -q '^hot_a:' mix.prof
	run -0 --separate-stderr sbx profgen --json --binary "$W" --binary "$N" mix.data
	echo "$output" | jq -r '.functions[] | .name + " " + (.binary // "NONE")' | sort > got
	grep -qx "loop1 $W" got
	grep -qx "hot_a $N" got
	grep -qx "hot_b $N" got
	[ "$(echo "$output" | jq -r '.binaries | join(" ")')" = "$W $N" ]
	# every function is named with one of the two
	run -1 grep -v -e " $W\$" -e " $N\$" got
}

@test "profgen: DWARF from a separate debug file: --debug-binary, and found by build-id in ~/.debug" {
	local id
	[ -s "$D/two.data" ] || { echo "perf record could not record"; return 1; }
	run -0 --separate-stderr sbx profgen --binary "$W" -o ref.prof "$D/two.data"
	grep -q '^ 2.2: [1-9]' ref.prof	# lines: the DWARF was read
	objcopy --only-keep-debug "$W" app.debug
	strip -g -o nodebug "$W"
	# without it: a profile of symbols, said so
	run -0 --separate-stderr sbx profgen --binary nodebug -o sym.prof "$D/two.data"
	assert_regex "$stderr" "has no DWARF for its sampled code"
	run -1 diff -q ref.prof sym.prof
	run -0 --separate-stderr sbx profgen --binary nodebug --debug-binary app.debug -o given.prof "$D/two.data"
	run -0 diff ref.prof given.prof
	run -0 --separate-stderr sbx profgen --binary nodebug --debug-file app.debug -o given2.prof "$D/two.data"
	run -0 diff ref.prof given2.prof
	# where gdb and perf look: HOME/.debug/.build-id/XX/REST.debug
	id=$(readelf -n "$W" | awk '/Build ID:/ { print $3 }')
	[ -n "$id" ]
	mkdir -p "home/.debug/.build-id/${id:0:2}"
	cp app.debug "home/.debug/.build-id/${id:0:2}/${id:2}.debug"
	HOME=$PWD/home run -0 --separate-stderr "$SBX" profgen --binary nodebug -o found.prof "$D/two.data"
	run -0 diff ref.prof found.prof
}

@test "profgen: llvm-profgen's command line as it is: long options with one dash" {
	[ -s "$D/two.data" ] || { echo "perf record could not record"; return 1; }
	run -0 --separate-stderr sbx profgen --binary "$W" -o ref.prof "$D/two.data"
	run -0 --separate-stderr sbx profgen -binary="$W" -perfdata="$D/two.data" -output=one.prof \
		-format=text -show-detailed-warning
	run -0 diff ref.prof one.prof
	# a value given apart, and -o with its value attached, stay what they are
	run -0 --separate-stderr sbx profgen -binary "$W" -oattached.prof "$D/two.data"
	run -0 diff ref.prof attached.prof
	# an option of neither is named as written, not as getopt's '-b'
	run -2 --separate-stderr sbx profgen -binary "$W" -bogus "$D/two.data"
	assert_equal "${stderr_lines[0]}" "sbx profgen: error: unknown option '-bogus'"
}

@test "profgen: perf script text of 200,000 processes, each mapping the binary lower down: every sample counted, in linear time" {
	local text
	text=$(objdump -d "$WORKLOADS/noploop" | awk '/<main>:/ { print $1; exit }')
	python3 - "$WORKLOADS/noploop" "$text" <<-'EOF'
	import sys
	path, main = sys.argv[1], int(sys.argv[2], 16)
	with open('many.script', 'w') as f:
	    for k in range(200000):
	        pid, base = 1000 + k, 0x10000000 + (200000 - k) * 0x10000
	        f.write('PERF_RECORD_MMAP2 %d/%d: [%#x(0x1000) @ 0x1000 08:01 123 0]: r-xp %s\n'
	                % (pid, pid, base, path))
	        f.write('%d %#x\n' % (pid, base + main - 0x1000 + 1))
	EOF
	run -0 --separate-stderr timeout 120 "$SBX" profgen --perfscript many.script --binary "$WORKLOADS/noploop" -o many.prof
	assert_regex "$stderr" '200000 samples, 200000 in the profile \(100\.0%\)'
	# the head: main's entry block, the 200000 samples of its first instruction over
	# its instructions (from objdump: up to its first jump or return)
	local n
	n=$(objdump -d --no-show-raw-insn "$WORKLOADS/noploop" | sed -n '/<main>:/,/^$/p' |
		awk 'NR > 1 && NF { n++; if ($2 ~ /^(j|ret)/) { print n; exit } }')
	run -0 head -1 many.prof
	assert_output "main:200000:$(( (200000 + n / 2) / n ))"
}

@test "profgen: counts that add up past 2^64 saturate as llvm-profgen 19's do; perf script text with CRLF is the same text" {
	# 128 ranges of 2^57 over four addresses of loop1: its total passes 2^64
	{ echo 128
	  for i in $(seq 0 127); do printf '%x-%x:144115188075855872\n' $((0x150 + i % 4 * 4)) $((0x150 + i % 4 * 4)); done
	  echo 0; } > wrap.raw
	run -0 "$PROFGEN19" --binary="$W" --unsymbolized-profile=wrap.raw --output=ref.prof --format=text
	run -0 --separate-stderr sbx profgen --binary "$W" --unsymbolized-profile wrap.raw -o ours.prof
	run -0 diff ref.prof ours.prof
	run -0 head -1 ours.prof
	assert_output 'loop1:18446744073709551615:0'
	# CRLF line ends
	[ -s "$D/lbr.data" ] || { echo "swlbr could not trace"; return 1; }
	perf script -F ip,brstack --show-mmap-events -i "$D/lbr.data" > lf.script 2> /dev/null
	sed 's/$/\r/' lf.script > crlf.script
	run -0 --separate-stderr sbx profgen --binary "$W" --perfscript lf.script -o lf.prof
	run -0 --separate-stderr sbx profgen --binary "$W" --perfscript crlf.script -o crlf.prof
	[[ $stderr != *'neither samples nor events'* ]]
	run -0 diff lf.prof crlf.prof
}

@test "profgen: a binary that cannot be read for want of descriptors is an error, not a binary without DWARF" {
	[ -s "$D/two.data" ] || { echo "the recording in setup_file failed"; return 1; }
	# (bats holds descriptors above 2: closed first, so that 5 is 5)
	run -1 --separate-stderr bash -c 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
		ulimit -n 5; exec "$0" profgen "$1" --binary "$2" -o p.prof' "$SBX" "$D/two.data" "$W"
	assert_equal "${stderr_lines[-1]}" "sbx profgen: error: $W: Too many open files"
	[[ $stderr != *'has no DWARF'* ]]
	[ ! -e p.prof ]
}

@test "bench: pgo-oracle.py gives each line of a profile the number of times it ran, and adds the lines the samples missed" {
	command -v clang-14 >/dev/null || skip "clang 14 is not installed"
	cat > o.c <<-'C'
	int work(int n)
	{
		int s = 0;
		for (int i = 0; i < n; i++)
			s += i * 7;
		return s;
	}
	int main(void) { return work(1000) == 3496500 ? 0 : 1; }
	C
	clang-14 -O0 -g -gline-tables-only -fdebug-info-for-profiling -o o o.c
	clang-14 -O0 -g -fprofile-instr-generate -fcoverage-mapping -o ocov o.c
	LLVM_PROFILE_FILE=o.profraw ./ocov
	"$PROFDATA14" merge -o o.profdata o.profraw
	"$(dirname "$PROFDATA14")/llvm-cov" export -format=text -instr-profile=o.profdata ./ocov > o.json
	"$(dirname "$PROFDATA14")/llvm-dwarfdump" --debug-info o > o.dwarf
	# a profile whose samples saw only the loop body, with made-up counts
	printf 'work:20:3\n 4: 10\n' > o.prof
	run -0 python3 "$BATS_TEST_DIRNAME/../scripts/bench/pgo-oracle.py" o.prof o.json o.dwarf
	# work runs once; its loop line 1001 times (its exit test too), the body 1000 times
	assert_line --index 0 --regexp '^work:[0-9]+:1$'
	assert_line ' 3: 1001'
	assert_line ' 4: 1000'
	assert_line ' 5: 1'
	refute_line ' 4: 10'
}
