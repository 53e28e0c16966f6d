// SPDX-License-Identifier: MIT
/*
 * sqlite-workload [ROWS]: a fixed SQLite workload for scripts/bench/profgen-pgo.sh:
 * inserts ROWS rows (default 300000) into an in-memory table in one
 * transaction, builds an index, and runs GROUP BY, LIKE, range, ORDER BY,
 * UPDATE and DELETE statements over it. The data is made by a fixed
 * pseudo-random sequence, so every run does the same work. Prints a checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sqlite3.h"

static uint64_t state = 0x2545f4914f6cdd1dULL;

static uint64_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static void must(int rc, sqlite3 *db, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "sqlite-workload: %s: %s\n", what, sqlite3_errmsg(db));
		exit(1);
	}
}

/* Run sql and add every integer or real of every row to *sum. */
static void query(sqlite3 *db, const char *sql, double *sum)
{
	sqlite3_stmt *st;
	int rc;

	must(sqlite3_prepare_v2(db, sql, -1, &st, NULL), db, sql);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (int c = 0; c < sqlite3_column_count(st); c++)
			*sum += sqlite3_column_double(st, c);
	must(rc, db, sql);
	sqlite3_finalize(st);
}

int main(int argc, char **argv)
{
	long rows = argc > 1 ? atol(argv[1]) : 300000;
	static const char *const words[] = { "alpha", "bravo", "charlie", "delta", "echo",
					     "foxtrot", "golf", "hotel", "india", "juliet" };
	sqlite3 *db;
	sqlite3_stmt *ins;
	double sum = 0;
	char name[64];

	must(sqlite3_open(":memory:", &db), db, "open");
	must(sqlite3_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, "
			  "val REAL)", NULL, NULL, NULL), db, "create");
	must(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), db, "begin");
	must(sqlite3_prepare_v2(db, "INSERT INTO t(name, grp, val) VALUES (?, ?, ?)", -1, &ins,
				NULL), db, "insert");
	for (long i = 0; i < rows; i++) {
		uint64_t r = next();

		snprintf(name, sizeof(name), "%s-%s-%llu", words[r % 10], words[(r >> 8) % 10],
			 (unsigned long long)(r >> 20) % 100000);
		sqlite3_bind_text(ins, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(ins, 2, (sqlite3_int64)((r >> 40) % 1000));
		sqlite3_bind_double(ins, 3, (double)(r % 1000000) / 1000.0);
		must(sqlite3_step(ins), db, "insert step");
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	must(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), db, "commit");
	must(sqlite3_exec(db, "CREATE INDEX t_grp ON t(grp)", NULL, NULL, NULL), db, "index");
	for (int pass = 0; pass < 3; pass++) {
		query(db, "SELECT grp, count(*), sum(val), avg(length(name)) FROM t GROUP BY grp", &sum);
		query(db, "SELECT count(*) FROM t WHERE name LIKE '%echo-golf%'", &sum);
		query(db, "SELECT sum(val) FROM t WHERE grp BETWEEN 100 AND 300", &sum);
		query(db, "SELECT id, val FROM t ORDER BY val DESC LIMIT 100", &sum);
		query(db, "SELECT substr(name, 1, 5) AS w, count(*) FROM t GROUP BY w ORDER BY 2", &sum);
	}
	must(sqlite3_exec(db, "UPDATE t SET val = val * 1.5 WHERE grp % 7 = 0", NULL, NULL, NULL),
	     db, "update");
	must(sqlite3_exec(db, "DELETE FROM t WHERE grp % 11 = 0", NULL, NULL, NULL), db, "delete");
	query(db, "SELECT count(*), sum(val) FROM t", &sum);
	printf("%.3f\n", sum);
	sqlite3_close(db);
	return 0;
}
