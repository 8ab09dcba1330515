/* cases.h - reading measured cases: CSV files in the schema of
 * tests/cases/README.md (calibration.csv: one measured training run per row;
 * microbench.csv: one kernel or collective measurement per row).
 *
 * The reader follows RFC 4180: comma-separated fields (tab- or semicolon-
 * separated where the header line has no comma but those: a spreadsheet's
 * export), optional double quotes,
 * "" inside quotes for a quote, newlines allowed inside quoted fields, CRLF or
 * LF line ends, a header row first. Errors are "path:line: error: ..." with the
 * physical line where the row starts; a row with the wrong number of fields, a
 * missing required column, an unterminated quote or a NUL byte is an error.
 */
#ifndef PODSIM_CASES_H
#define PODSIM_CASES_H

#include "../core/core.h"

#define CASES_MAX_FIELD 4096 /* bytes per field */
#define CASES_MAX_COLS 64

typedef struct cases_csv cases_csv;

/* Read a whole CSV file. SIM_OK, SIM_EIO (cannot open), SIM_ECONF (malformed:
 * see diag) or SIM_ENOMEM. */
int cases_csv_read(const char *path, cases_csv **out, sim_diag *diag);
/* Parse from memory (tests, fuzzing); `name` is used in messages. */
int cases_csv_parse(const char *text, size_t len, const char *name, cases_csv **out,
		    sim_diag *diag);
void cases_csv_free(cases_csv *c);

size_t cases_csv_rows(const cases_csv *c);
const char *cases_csv_path(const cases_csv *c);
/* The field separator the header line set: ',', '\t' or ';'. */
char cases_csv_sep(const cases_csv *c);
/* Header name of column `col`, or NULL past the last. */
const char *cases_csv_header(const cases_csv *c, int col);
/* Column index of a header name, or -1. */
int cases_csv_col(const cases_csv *c, const char *name);
/* Field text (never NULL; "" when empty) and the row's first physical line. */
const char *cases_csv_get(const cases_csv *c, size_t row, int col);
int cases_csv_line(const cases_csv *c, size_t row);
/* Replace a data field's text (a reader's reading of a value written
 * loosely: "1,024" as 1024); the text as the file wrote it stays readable
 * with cases_csv_written (the field's own text when never replaced).
 * SIM_OK, SIM_ECONF (no such field) or SIM_ENOMEM. */
int cases_csv_set(cases_csv *c, size_t row, int col, const char *text);
const char *cases_csv_written(const cases_csv *c, size_t row, int col);
/* Rename header column `col` (a reader's reading of a header written
 * another way: "num_gpus" as gpus). SIM_OK, SIM_ECONF or SIM_ENOMEM. */
int cases_csv_rename_col(cases_csv *c, int col, const char *name);

/* Require every name in `cols` (NULL-terminated) as a header column; report
 * each missing one as "path:1: error: missing column 'x'". Returns the number
 * missing. */
int cases_csv_require(const cases_csv *c, const char *const *cols, sim_diag *diag);

/* Typed access. Empty fields give `*out = def` and SIM_OK; malformed ones
 * SIM_ECONF with "path:line: error: column 'x': expected ..., got '...'". */
int cases_get_int(const cases_csv *c, size_t row, const char *col, long def, long *out,
		  sim_diag *diag);
int cases_get_real(const cases_csv *c, size_t row, const char *col, double def, double *out,
		   sim_diag *diag);

#endif
