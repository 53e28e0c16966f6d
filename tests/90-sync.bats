#!/usr/bin/env bats
# What must hold for every command of the table: usage, man page, completions.
# The command table (sbx --list-cmds) drives every loop here.

load test_helper

DOC=$TOP/Documentation

# The usage lines of `sbx CMD -h`, without the `usage: ` / `   or: ` lead.
usage_lines() {
	run -0 --separate-stderr "$SBX" "$@" -h
	printf '%s\n' "$output" | sed -n -e '/^$/q' -e 's/^usage: //p' -e 's/^   or: //p'
}

# The SYNOPSIS lines of a man page source, scdoc markup removed.
synopsis_lines() {
	sed -n '/^# SYNOPSIS/,/^# /{/^#/d;/^$/d;p}' "$1" |
		sed -E -e 's/ \+\+$//' -e 's/\*//g' -e 's/(^|[^[:alnum:]])_/\1/g' -e 's/_([^[:alnum:]]|$)/\1/g'
}

bash_complete() {	# words…: completes the last word as bash would
	bash -c 'source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _sbx; printf "%s\n" "${COMPREPLY[@]}"' \
		"$TOP/completions/sbx.bash" "$@" | sort
}

zsh_complete() {	# words…: completes the last word as zsh would (compadd recorded)
	zsh -f -c '
		compadd() { [[ $1 == -a ]] && print -l -- ${(P)2} || print -l -- "$@"; }
		_files() { print -- "FILES $*"; }
		_command_names() { print COMMANDS; }
		_normal() { print COMMANDS; }
		words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}
		source "$0"' "$TOP/completions/_sbx" "$@" | grep -E -- "^${!#}" | sort
}

@test "every command: -h prints its usage on stdout, nothing on stderr, exit 0" {
	for c in $(sbx --list-cmds); do
		run -0 --separate-stderr sbx "$c" -h
		assert_line --index 0 --regexp "^usage: sbx $c( |$)"
		[ -z "$stderr" ] || { echo "$c -h wrote to stderr: $stderr"; return 1; }
	done
}

@test "every command has a man page with the sections in order" {
	for c in $(sbx --list-cmds); do
		local src=$DOC/sbx-$c.1.scd
		[ -f "$src" ] || { echo "no $src"; return 1; }
		run -0 grep -E '^# [A-Z]' "$src"
		assert_equal "$(printf '%s\n' "${lines[@]}" | grep -Ex '# (NAME|SYNOPSIS|DESCRIPTION|OPTIONS|EXIT STATUS|EXAMPLES|SEE ALSO)' | tr '\n' '|')" \
			'# NAME|# SYNOPSIS|# DESCRIPTION|# OPTIONS|# EXIT STATUS|# EXAMPLES|# SEE ALSO|'
		grep -qx "sbx-$c - $(sbx help | sed -n "s/^   $c  *//p")" "$src" ||
			{ echo "NAME line of sbx-$c differs from the summary in sbx help"; return 1; }
	done
}

@test "every man page SYNOPSIS equals the usage of -h" {
	for c in $(sbx --list-cmds); do
		assert_equal "$(synopsis_lines "$DOC/sbx-$c.1.scd")" "$(usage_lines "$c")"
	done
	assert_equal "$(synopsis_lines "$DOC/sbx.1.scd")" \
		"$(sbx help | sed -n 's/^usage: //p')"
}

@test "every option a command takes is described in its man page" {
	for c in $(sbx --list-cmds); do
		for o in $(sbx "$c" --list-opts); do
			case $o in --help|--list-opts|-h) continue ;; esac
			grep -qE -- "\*${o}\*" "$DOC/sbx-$c.1.scd" ||
				{ echo "sbx-$c.1.scd does not describe $o"; return 1; }
		done
	done
}

@test "sbx(1) names every command; every page renders with man -l" {
	for c in $(sbx --list-cmds); do
		grep -q "^\*$c\*" "$DOC/sbx.1.scd" || { echo "sbx.1 misses $c"; return 1; }
	done
	for page in "$DOC"/*.scd; do
		local out=${page%.scd}
		[ -f "$out" ] || { echo "$out was not built"; return 1; }
		run -0 --separate-stderr man -l "$out"
		assert_line --index 1 --regexp '^NAME'
		[ -z "$stderr" ] || { echo "man -l $out: $stderr"; return 1; }
	done
}

@test "bash completion: commands, plugins and each command's options come from the binary" {
	run -0 bash_complete "$SBX" r
	assert_output "$(printf 'record\nreport\nrun')"
	SBX_EXEC_PATH=$DATA/plugins run -0 bash_complete "$SBX" he
	assert_output "$(printf 'hello\nhelp')"
	run -0 bash_complete "$SBX" --no-color r
	assert_output "$(printf 'record\nreport\nrun')"
	for c in $(sbx --list-cmds); do
		run -0 bash_complete "$SBX" -v "$c" --
		assert_output "$(sbx "$c" --list-opts | grep -- '^--' | sort)"
	done
	run -0 bash_complete "$SBX" help re
	assert_output "$(printf 'record\nreport')"
}

@test "zsh completion: commands, plugins and each command's options come from the binary" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	run -0 zsh_complete "$SBX" r
	assert_output "$(printf 'record\nreport\nrun')"
	SBX_EXEC_PATH=$DATA/plugins run -0 zsh_complete "$SBX" he
	assert_output "$(printf 'hello\nhelp')"
	for c in $(sbx --list-cmds); do
		run -0 zsh_complete "$SBX" "$c" --
		assert_output "$(sbx "$c" --list-opts | grep -- '^--' | sort)"
	done
}

@test "bash completion: each command's operands, and the values that are files" {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p snips
	touch a.s b.S c.asm d.txt e.yaml perf.data
	run -0 bash_complete "$SBX" run ''
	assert_output "$(printf 'a.s\nb.S\nc.asm\ne.yaml\nsnips')"
	run -0 bash_complete "$SBX" run --exegesis ''
	assert_line e.yaml
	run -0 bash_complete "$SBX" record -e cpu-clock bas
	assert_line bash
	run -0 bash_complete "$SBX" report ''
	assert_output ''
	run -0 bash_complete "$SBX" script -i perf
	assert_output perf.data
	run -0 bash_complete "$SBX" run --benchmarks-file d
	assert_output d.txt
	run -0 bash_complete "$SBX" jit-inject --jit-dir ''
	assert_output snips
	run -0 bash_complete "$SBX" jit-inject ''
	assert_output ''
}

@test "bash completion: option values come from the binary (events, tracepoints, sort keys, modes)" {
	cd "$BATS_TEST_TMPDIR"
	run -0 bash_complete "$SBX" run --mode ''
	assert_output "$(printf 'inverse_throughput\nlatency\nuops')"
	run -0 bash_complete "$SBX" run --repetition-mode l
	assert_output loop
	run -0 bash_complete "$SBX" record -e cpu-c
	assert_output "$(printf 'cpu-clock\ncpu-cycles')"
	# after a comma, the next one of the list
	run -0 bash_complete "$SBX" record -e cpu-clock,page-f
	assert_output cpu-clock,page-faults
	run -0 bash_complete "$SBX" report -s comm,d
	assert_output comm,dso
	run -0 bash_complete "$SBX" script -F ti
	assert_output "$(printf 'tid\ntime')"
	run -0 bash_complete "$SBX" profgen --format e
	assert_output extbinary
	# tracepoints, from tracefs (mounted for the tracepoint tests)
	if [ -d /sys/kernel/tracing/events/sched ]; then
		run -0 bash_complete "$SBX" record -e sched:sched_swi
		assert_output sched:sched_switch
	fi
	# the list itself: every name is one sbx record takes
	run -0 sbx record --list-values -e
	assert_line cpu-clock
	assert_line task-clock
	run -0 --separate-stderr sbx record -q -e "$(sbx record --list-values -e | grep -m1 '^sched:sched_switch$' || echo cpu-clock)" -o v.data -- true
	# an option without a list of values: nothing
	run -0 sbx report --list-values --pid
	assert_output ''
	# -i: perf.data files first
	touch a.data b.txt
	run -0 bash_complete "$SBX" report -i ''
	assert_output "$(printf 'a.data\nv.data')"
}

@test "zsh completion: each command's operands, and the values that are files" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	run -0 zsh_complete "$SBX" run ''
	assert_output "FILES -g *.(s|S|asm|yaml)"
	run -0 zsh_complete "$SBX" run --exegesis ''
	assert_output "FILES "
	run -0 zsh_complete "$SBX" record ''
	assert_output COMMANDS
	run -0 zsh_complete "$SBX" report ''
	assert_output ''
	run -0 zsh_complete "$SBX" script -i ''
	assert_output 'FILES -g *.data'
	# the values of options, from the binary
	run -0 zsh_complete "$SBX" run --mode ''
	assert_output "$(printf 'inverse_throughput\nlatency\nuops')"
	run -0 zsh_complete "$SBX" record -e cpu-c
	assert_output "$(printf 'cpu-clock\ncpu-cycles')"
	run -0 zsh_complete "$SBX" jit-inject --jit-dir ''
	assert_output 'FILES -/'
	run -0 zsh_complete "$SBX" jit-inject ''
	assert_output ''
}

@test "make install puts the binary, man pages, completions and libsbx-jit in place, no internal header; make uninstall removes them" {
	local dest=$BATS_TEST_TMPDIR/dest
	# installing builds no test workload
	run -0 make -C "$TOP" -n install DESTDIR="$dest" PREFIX=/opt/sbx
	refute_output --partial tests/workloads
	run -0 make -C "$TOP" -s install DESTDIR="$dest" PREFIX=/opt/sbx
	[ -x "$dest/opt/sbx/bin/sbx" ]
	[ -f "$dest/opt/sbx/share/man/man1/sbx.1" ]
	[ -f "$dest/opt/sbx/share/man/man7/sbx-plugins.7" ]
	[ -f "$dest/opt/sbx/share/bash-completion/completions/sbx" ]
	[ -f "$dest/opt/sbx/share/zsh/site-functions/_sbx" ]
	[ -d "$dest/opt/sbx/libexec/sbx" ]
	for c in $(sbx --list-cmds); do
		[ -f "$dest/opt/sbx/share/man/man1/sbx-$c.1" ] || { echo "sbx-$c.1 not installed"; return 1; }
	done
	# lib/ is internal: none of its headers, no libsbx.a; libsbx-jit is the public API
	run -0 find "$dest" -name '*.h' -o -name 'libsbx.a'
	assert_output "$dest/opt/sbx/include/sbx/jit.h"
	[ -f "$dest/opt/sbx/lib/libsbx-jit.a" ]
	[ -f "$dest/opt/sbx/share/man/man3/sbx-jit.3" ]
	[ "$(readlink "$dest/opt/sbx/lib/libsbx-jit.so")" = libsbx-jit.so.1 ]
	run -0 readelf -d "$dest/opt/sbx/lib/libsbx-jit.so.1"
	assert_output --partial 'Library soname: [libsbx-jit.so.1]'
	# it exports sbx_jit_* only, versioned, and needs nothing but libc
	run -0 nm -D --defined-only "$dest/opt/sbx/lib/libsbx-jit.so.1"
	refute_output --regexp ' [TDB] (sbx_[^j]|[^s])'
	assert_output --partial 'sbx_jit_open@@SBX_JIT_1.0'
	run -0 readelf -d "$dest/opt/sbx/lib/libsbx-jit.so.1"
	assert_equal "$(printf '%s\n' "${lines[@]}" | grep NEEDED | sed 's/.*\[//')" 'libc.so.6]'
	# a program built from the installed header, library and pkg-config file
	cat > "$BATS_TEST_TMPDIR/p.c" <<'C'
#include <sbx/jit.h>
int main(void) { return sbx_jit_close(0) == 0 && SBX_JIT_VERSION_MAJOR == 1 ? 0 : 1; }
C
	PKG_CONFIG_PATH=$dest/opt/sbx/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest \
		run -0 pkg-config --cflags --libs sbx-jit
	cc -o "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/p.c" $output
	LD_LIBRARY_PATH=$dest/opt/sbx/lib run -0 "$BATS_TEST_TMPDIR/p"
	run -0 make -C "$TOP" -s uninstall DESTDIR="$dest" PREFIX=/opt/sbx
	run -0 find "$dest" -type f
	assert_output ''
}

# The layers of lib/ (Documentation/design.md), lowest first, and what each may include.
layer_allows() {
	case $1 in
	util) echo util ;;
	perf) echo util perf ;;
	symbol) echo util perf symbol ;;
	measure) echo util perf symbol measure ;;
	profile) echo util perf symbol profile ;;
	jit) echo util perf symbol jit ;;
	*) return 1 ;;
	esac
}

# Every include of lib/ (or of another tree laid out like it, $1) that breaks
# the layering, one line each.
layer_violations() {
	local root=$1 f layer inc allowed
	for f in "$root"/*/*.[ch]; do
		layer=$(basename "$(dirname "$f")")
		allowed=$(layer_allows "$layer") || { echo "${f#"$root"/}: lib/$layer/ is not a layer"; continue; }
		for inc in $(sed -n 's/^#include "\([a-z]*\)\/.*/\1/p' "$f"); do
			[[ " $allowed " == *" $inc "* ]] ||
				echo "${f#"$root"/}: a $layer module includes a $inc header"
		done
		# project headers by their layer's path, never relative
		grep -qE '^#include "([^/"]*|\.\./[^"]*)"' "$f" &&
			echo "${f#"$root"/}: a header without its layer's folder"
		case $f in *.c)
			[ -f "${f%.c}.h" ] || echo "${f#"$root"/}: no header of its own" ;;
		esac
	done
}

@test "lib/ by layer: no module includes a header of a higher layer, every module has its header" {
	run -0 layer_violations "$TOP/lib"
	assert_output ''
	# and the check does catch a perf module that reaches up into symbol/
	local fake=$BATS_TEST_TMPDIR/lib
	mkdir -p "$fake/perf" "$fake/util"
	printf '#include "util/error.h"\n#include "symbol/dso.h"\n' > "$fake/perf/session.c"
	touch "$fake/perf/session.h"
	printf '#include "perf/session.h"\n' > "$fake/util/x.h"
	run -0 layer_violations "$fake"
	assert_line 'perf/session.c: a perf module includes a symbol header'
	assert_line 'util/x.h: a util module includes a perf header'
	[ "${#lines[@]}" -eq 2 ]
}

@test "nothing in the repository refers to a path outside it" {
	cd "$TOP"
	run git grep -nE '\.\./shared|shared/reference|shared/DESIGN' -- . ':!tests/90-sync.bats'
	assert_output ''
}

@test "run-all.sh: every skip shown with its reason; under CI=true only hardware ones are accepted" {
	cd "$BATS_TEST_TMPDIR"
	# (not a here-document: bats would take its @test lines for its own)
	local t=@test
	{
		echo "load $TOP/tests/test_helper"
		echo "$t \"runs\" { true; }"
		echo "$t \"set-up broken\" { skip \"perf record could not record here\"; }"
		echo "$t \"no LBR\" { skip_hw \"no LBR on this machine\"; }"
	} > suite.bats
	run -0 env CI= B=/nonexistent SUITES="$BATS_TEST_TMPDIR/suite.bats" "$TOP/tests/run-all.sh"
	assert_line 'ok 2 set-up broken # skip perf record could not record here'
	assert_line 'ok 3 no LBR # skip hardware: no LBR on this machine'
	assert_line '1 passed, 0 failed, 2 skipped'
	run -1 env CI=true B=/nonexistent SUITES="$BATS_TEST_TMPDIR/suite.bats" "$TOP/tests/run-all.sh"
	assert_line 'not ok - suite.bats: skipped under CI=true for a reason other than hardware'
	assert_line '1 passed, 1 failed, 1 skipped'
}
