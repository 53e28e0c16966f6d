#!/usr/bin/env bats
# What must hold for every command of the table: usage, man page, completions.
# The command table (sbx --list-cmds) drives every loop here.

load test_helper

DOC=$TOP/Documentation

# The usage lines of `sbx CMD -h`, without the `usage: ` / `   or: ` lead.
usage_lines() {
	"$SBX" "$@" -h | sed -n -e '/^$/q' -e 's/^usage: //p' -e 's/^   or: //p'
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
	touch a.s b.S c.asm d.txt perf.data
	run -0 bash_complete "$SBX" run ''
	assert_output "$(printf 'a.s\nb.S\nc.asm\nsnips')"
	run -0 bash_complete "$SBX" record -e cpu-clock bas
	assert_line bash
	run -0 bash_complete "$SBX" report ''
	assert_output ''
	run -0 bash_complete "$SBX" script -i perf
	assert_output perf.data
	run -0 bash_complete "$SBX" run --benchmarks-file d
	assert_output d.txt
}

@test "zsh completion: each command's operands, and the values that are files" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	run -0 zsh_complete "$SBX" run ''
	assert_output "FILES -g *.(s|S|asm)"
	run -0 zsh_complete "$SBX" record ''
	assert_output COMMANDS
	run -0 zsh_complete "$SBX" report ''
	assert_output ''
	run -0 zsh_complete "$SBX" script -i ''
	assert_output 'FILES '
}

@test "make install puts everything in place under DESTDIR, and make uninstall removes it" {
	local dest=$BATS_TEST_TMPDIR/dest
	run -0 make -C "$TOP" -s -o all install DESTDIR="$dest" PREFIX=/opt/sbx
	[ -x "$dest/opt/sbx/bin/sbx" ]
	[ -f "$dest/opt/sbx/lib/libsbx.a" ]
	[ -f "$dest/opt/sbx/include/sbx/error.h" ]
	[ -f "$dest/opt/sbx/share/man/man1/sbx.1" ]
	[ -f "$dest/opt/sbx/share/man/man7/sbx-plugins.7" ]
	[ -f "$dest/opt/sbx/share/bash-completion/completions/sbx" ]
	[ -f "$dest/opt/sbx/share/zsh/site-functions/_sbx" ]
	[ -d "$dest/opt/sbx/libexec/sbx" ]
	for c in $(sbx --list-cmds); do
		[ -f "$dest/opt/sbx/share/man/man1/sbx-$c.1" ] || { echo "sbx-$c.1 not installed"; return 1; }
	done
	run -0 make -C "$TOP" -s uninstall DESTDIR="$dest" PREFIX=/opt/sbx
	run -0 find "$dest" -type f
	assert_output ''
}
