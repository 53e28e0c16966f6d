# shellcheck shell=bash
# Sourced by the profgen benchmarks: SQLite (the amalgamation that the
# better-sqlite3 npm package ships) and scripts/bench/sqlite-workload.c, built
# with clang -O2 -g -fdebug-info-for-profiling into $work.
#
#   sqlite_fetch                      sqlite3.[ch] into $work, once
#   sqlite_build NAME EXTRA-FLAGS...  $work/NAME
: "${work:?set work before sourcing sqlite.sh}"
CC=${CC:-clang}
SQLITE_NPM=better-sqlite3@12.11.1

sqlite_fetch() {
	[ -f "$work/sqlite3.c" ] && return
	echo "${0##*/}: fetching SQLite (npm pack $SQLITE_NPM)" >&2
	(cd "$work" && npm pack --silent "$SQLITE_NPM" >/dev/null &&
		tar xzf better-sqlite3-*.tgz package/deps/sqlite3 &&
		cp package/deps/sqlite3/sqlite3.[ch] . && rm -rf package better-sqlite3-*.tgz)
}

sqlite_build() {
	local name=$1
	shift
	sqlite_fetch
	echo "${0##*/}: building $name" >&2
	"$CC" -O2 -g -fdebug-info-for-profiling -DSQLITE_THREADSAFE=0 \
		-DSQLITE_OMIT_LOAD_EXTENSION -I"$work" "$@" -o "$work/$name" \
		"$work/sqlite3.c" scripts/bench/sqlite-workload.c -lm
}
