#!/usr/bin/env bats
# External sbx-<name> commands, found like git finds git-<name>.

load test_helper

setup() {
	PLUGINS=$DATA/plugins
	OTHER=$BATS_TEST_TMPDIR/other
	mkdir -p "$OTHER"
}

@test "a plugin on SBX_EXEC_PATH is found and gets its arguments unchanged" {
	SBX_EXEC_PATH=$PLUGINS run -0 sbx hello one 'two words' --flag
	assert_line --index 0 'arg: one'
	assert_line --index 1 'arg: two words'
	assert_line --index 2 'arg: --flag'
}

@test "the plugin's exit status becomes sbx's" {
	HELLO_EXIT=7 SBX_EXEC_PATH=$PLUGINS run -7 sbx hello
	HELLO_EXIT=0 SBX_EXEC_PATH=$PLUGINS run -0 sbx hello
}

@test "a plugin can call back into the sbx that ran it" {
	SBX_EXEC_PATH=$PLUGINS run -0 sbx hello
	assert_line "SBX=$(readlink -f "$SBX")"
	assert_line "SBX_EXEC_PATH=$PLUGINS"
	assert_line --regexp '^version: sbx version '
}

@test "a plugin on PATH is found when SBX_EXEC_PATH has none" {
	PATH=$PLUGINS:$PATH run -0 sbx hello x
	assert_line --index 0 'arg: x'
}

@test "SBX_EXEC_PATH comes before PATH" {
	printf '#!/bin/sh\necho from-path\n' > "$OTHER/sbx-hello"
	chmod +x "$OTHER/sbx-hello"
	SBX_EXEC_PATH=$PLUGINS PATH=$OTHER:$PATH run -0 sbx hello x
	assert_line --index 0 'arg: x'
	PATH=$OTHER:$PATH run -0 sbx hello x
	assert_output from-path
}

@test "a built-in command wins over a plugin of the same name" {
	printf '#!/bin/sh\necho plugin-run\n' > "$OTHER/sbx-run"
	chmod +x "$OTHER/sbx-run"
	SBX_EXEC_PATH=$OTHER run -0 sbx run -h
	assert_line --index 0 --partial 'usage: sbx run'
	SBX_EXEC_PATH=$OTHER run -0 sbx --list-plugins
	[[ $'\n'$output$'\n' != *$'\n'run$'\n'* ]]
}

@test "a file that is not executable is no plugin" {
	printf '#!/bin/sh\necho no\n' > "$OTHER/sbx-noexec"
	chmod -x "$OTHER/sbx-noexec"
	SBX_EXEC_PATH=$OTHER run -2 --separate-stderr sbx noexec
	assert_equal "$stderr" "sbx: error: 'noexec' is not an sbx command; see 'sbx help'"
}

@test "sbx help and --list-plugins list plugins apart from the built-ins" {
	SBX_EXEC_PATH=$PLUGINS run -0 sbx help
	assert_line --regexp '^plugins '
	assert_line '   hello'
	SBX_EXEC_PATH=$PLUGINS run -0 sbx --list-plugins
	assert_line hello
}

@test "a mistyped plugin name is suggested" {
	SBX_EXEC_PATH=$PLUGINS run -2 --separate-stderr sbx helo
	assert_equal "$stderr" "sbx: error: 'helo' is not an sbx command; did you mean 'hello'?"
}
