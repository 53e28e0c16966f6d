#!/usr/bin/env bats
# The sbx binary itself: help, version, exit codes, global options.

load test_helper

@test "sbx help lists every command of the table with its summary" {
	run -0 --separate-stderr sbx help
	assert_line --index 0 --partial 'usage: sbx'
	local cmds
	cmds=$(sbx --list-cmds)
	[ -n "$cmds" ]
	for c in $cmds; do
		assert_line --regexp "^   $c +[a-z]"
	done
	[ -z "$stderr" ]
}

@test "sbx -h and sbx --help list the commands too" {
	run -0 sbx -h
	assert_line --regexp '^   run +measure'
	run -0 sbx help
	local help_out=$output
	run -0 sbx -h
	assert_equal "$output" "$help_out"
}

@test "sbx --list-cmds prints one built-in command a line, nothing else" {
	run -0 --separate-stderr sbx --list-cmds
	assert_output "$(printf 'run\nrecord\nreport\nscript\nprofgen\njit-inject')"
	[ -z "$stderr" ]
}

@test "sbx --version prints the version" {
	run -0 sbx --version
	assert_output --regexp '^sbx version [0-9a-g][0-9a-z.-]*$'
}

@test "sbx without a command is a usage error (exit 2) on stderr" {
	run -2 --separate-stderr sbx
	[ -z "$output" ]
	assert_equal "${stderr_lines[0]%% *}" "usage:"
}

@test "an unknown command: one line, the closest command suggested, exit 2" {
	run -2 --separate-stderr sbx reprot
	[ -z "$output" ]
	assert_equal "$stderr" "sbx: error: 'reprot' is not an sbx command; did you mean 'report'?"
	run -2 --separate-stderr sbx rec
	assert_equal "$stderr" "sbx: error: 'rec' is not an sbx command; did you mean 'record'?"
	run -2 --separate-stderr sbx zzzzzzzz
	assert_equal "$stderr" "sbx: error: 'zzzzzzzz' is not an sbx command; see 'sbx help'"
}

@test "an unknown global option is a usage error" {
	run -2 --separate-stderr sbx --bogus help
	assert_equal "${stderr_lines[0]}" "sbx: error: unknown option '--bogus'"
}

@test "global options before the command are accepted" {
	run -0 sbx -v --json --no-color --verbose help
	assert_line --regexp '^   run '
}

@test "an unknown command option is a usage error naming the option, with the usage" {
	for c in $(sbx --list-cmds); do
		run -2 --separate-stderr sbx "$c" --no-such-option
		assert_equal "${stderr_lines[0]}" "sbx $c: error: unknown option '--no-such-option'"
		assert_equal "${stderr_lines[1]%% *}" "usage:"
		[ -z "$output" ]
	done
}

@test "sbx help CMD and sbx CMD --help show the command's manual page" {
	for c in $(sbx --list-cmds); do
		run -0 sbx help "$c"
		assert_line --regexp "^ +sbx-$c - "
		assert_line --regexp '^SYNOPSIS'
		run -0 sbx "$c" --help
		assert_line --regexp "^ +sbx-$c - "
	done
}

@test "sbx help with an unknown command is a usage error" {
	run -2 --separate-stderr sbx help nosuchcmd
	assert_equal "$stderr" "sbx: error: 'nosuchcmd' is not an sbx command; see 'sbx help'"
}

@test "sbx help plugins shows sbx-plugins(7)" {
	run -0 sbx help plugins
	assert_line --regexp '^ +sbx-plugins - external sbx commands'
}

@test "a write error on standard output is reported, not ignored" {
	[ -w /dev/full ] || skip "/dev/full is missing"
	run -1 --separate-stderr bash -c '"$0" help > /dev/full' "$SBX"
	assert_equal "$stderr" "sbx: error: write to standard output failed: No space left on device"
}
