/* csv.c - an RFC 4180 CSV reader with line numbers (see cases.h). The whole
 * file is read into memory and split into fields in one pass; rows keep the
 * physical line where they start. */
#include "cases.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cases_csv {
	char *path;
	int ncols;
	char **cells;   /* (rows + 1) * ncols, row 0 = header */
	int *lines;     /* first physical line of each row, header included */
	size_t nrows;   /* data rows */
	size_t cap;     /* rows allocated (header included) */
	char sep;       /* the field separator the header set */
	char **written; /* like cells: a field's text as the file wrote it, where
	                   cases_csv_set replaced it (NULL elsewhere, or all) */
};

typedef struct parser {
	const char *p, *end, *name;
	char sep; /* the field separator: ',' (or the header's '\t' or ';') */
	int line;
	sim_diag *diag;
	char field[CASES_MAX_FIELD];
} parser;

/* Parse one field into ps->field; *eol set when the field ended its row. */
static int next_field(parser *ps, bool *eol, bool *eof)
{
	size_t n = 0;
	bool quoted = ps->p < ps->end && *ps->p == '"';
	int start_line = ps->line;
	if (quoted)
		ps->p++;
	for (;;) {
		if (ps->p >= ps->end) {
			if (quoted) {
				sim_diag_error(ps->diag, ps->name, start_line, "unterminated quoted field");
				return SIM_ECONF;
			}
			*eol = *eof = true;
			break;
		}
		char ch = *ps->p++;
		if (ch == '\0') {
			sim_diag_error(ps->diag, ps->name, ps->line, "NUL byte: not a text CSV file");
			return SIM_ECONF;
		}
		if (quoted && ch == '"') {
			if (ps->p < ps->end && *ps->p == '"') {
				ps->p++;
			} else {
				quoted = false;
				if (ps->p < ps->end && *ps->p != ps->sep && *ps->p != '\n' &&
				    *ps->p != '\r') {
					sim_diag_error(ps->diag, ps->name, ps->line,
						       "text after a closing quote");
					return SIM_ECONF;
				}
				continue;
			}
		} else if (!quoted && (ch == ps->sep || ch == '\n' || ch == '\r')) {
			if (ch == '\r' && ps->p < ps->end && *ps->p == '\n')
				ps->p++;
			if (ch != ps->sep) {
				ps->line++;
				*eol = true;
				*eof = ps->p >= ps->end;
			}
			break;
		} else if (ch == '\n') {
			ps->line++;
		}
		if (n + 1 >= sizeof ps->field) {
			sim_diag_error(ps->diag, ps->name, start_line, "field longer than %d bytes",
				       CASES_MAX_FIELD - 1);
			return SIM_ECONF;
		}
		ps->field[n++] = ch;
	}
	ps->field[n] = '\0';
	/* ids and sources reach JSON, XHTML and the terminal: text only (a
	 * quoted field may hold line breaks, RFC 4180; each line is checked) */
	const char *why = NULL;
	size_t bad = n;
	for (size_t i = 0, j; i < n && bad == n; i = j + 1) {
		for (j = i; j < n && ps->field[j] != '\n' && ps->field[j] != '\r'; j++)
			;
		size_t at = sim_text_check(ps->field + i, j - i, &why);
		bad = at < j - i ? i + at : n;
	}
	if (bad < n) {
		sim_diag_error(ps->diag, ps->name, start_line,
			       "%s in a field (byte 0x%02x): a case file is UTF-8 text", why,
			       (unsigned)(unsigned char)ps->field[bad]);
		return SIM_ECONF;
	}
	return SIM_OK;
}

static int push_row(cases_csv *c, char **row, int line)
{
	if (c->nrows + 1 == c->cap) {
		size_t cap = c->cap * 2;
		char **cells = realloc(c->cells, cap * (size_t)c->ncols * sizeof *cells);
		int *lines = cells ? realloc(c->lines, cap * sizeof *lines) : NULL;
		if (cells)
			c->cells = cells;
		if (!lines)
			return SIM_ENOMEM;
		c->lines = lines;
		c->cap = cap;
	}
	size_t r = c->nrows + 1;
	memcpy(c->cells + r * (size_t)c->ncols, row, (size_t)c->ncols * sizeof *row);
	c->lines[r] = line;
	c->nrows++;
	return SIM_OK;
}

/* Read one row of fields into row[] (strdup'd); *n gets the count. */
static int read_row(parser *ps, char **row, int *n, bool *eof)
{
	bool eol = false;
	*n = 0;
	*eof = false;
	while (!eol) {
		int rc = next_field(ps, &eol, eof);
		if (rc != SIM_OK)
			return rc;
		if (*n < CASES_MAX_COLS) {
			row[*n] = strdup(ps->field);
			if (!row[*n])
				return SIM_ENOMEM;
		}
		(*n)++;
	}
	return SIM_OK;
}

static void free_row(char **row, int n)
{
	for (int i = 0; i < n && i < CASES_MAX_COLS; i++)
		free(row[i]);
}

static int parse_rows(parser *ps, cases_csv *c)
{
	char *row[CASES_MAX_COLS];
	int n, errors = 0;
	bool eof = false;
	while (!eof && ps->p < ps->end) {
		int line = ps->line;
		int rc = read_row(ps, row, &n, &eof);
		if (rc != SIM_OK) {
			free_row(row, n);
			return rc;
		}
		if (n == 1 && row[0][0] == '\0') { /* blank line */
			free_row(row, n);
			continue;
		}
		if (n != c->ncols) {
			sim_diag_error(ps->diag, ps->name, line, "row has %d fields, the header has %d",
				       n, c->ncols);
			free_row(row, n);
			if (++errors >= 20)
				return SIM_ECONF;
			continue;
		}
		if (push_row(c, row, line) != SIM_OK) {
			free_row(row, n);
			return SIM_ENOMEM;
		}
	}
	return errors ? SIM_ECONF : SIM_OK;
}

/* The header line's separator: ',' unless the line (outside quotes) has
 * none and has tabs (a spreadsheet's tab-separated export) or semicolons
 * (its export where the decimal mark is a comma). */
static char sniff_sep(const char *p, const char *end)
{
	int commas = 0, tabs = 0, semis = 0;
	for (bool quoted = false; p < end && (quoted || (*p != '\n' && *p != '\r')); p++) {
		quoted ^= *p == '"';
		if (!quoted) {
			commas += *p == ',';
			tabs += *p == '\t';
			semis += *p == ';';
		}
	}
	return commas ? ',' : tabs ? '\t' : semis ? ';' : ',';
}

int cases_csv_parse(const char *text, size_t len, const char *name, cases_csv **out,
		    sim_diag *diag)
{
	*out = NULL;
	parser *ps = malloc(sizeof *ps);
	cases_csv *c = calloc(1, sizeof *c);
	if (!ps || !c || !(c->path = strdup(name))) {
		free(ps), cases_csv_free(c);
		return SIM_ENOMEM;
	}
	*ps = (parser){.p = text, .end = text + len, .name = name, .line = 1, .diag = diag};
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		ps->p += 3;
	ps->sep = sniff_sep(ps->p, ps->end);
	char *row[CASES_MAX_COLS];
	int n = 0, rc;
	bool eof;
	if (ps->p >= ps->end) {
		sim_diag_error(diag, name, 0, "empty file: expected a header row");
		rc = SIM_ECONF;
	} else if ((rc = read_row(ps, row, &n, &eof)) == SIM_OK && n > CASES_MAX_COLS) {
		sim_diag_error(diag, name, 1, "more than %d columns", CASES_MAX_COLS);
		rc = SIM_ECONF;
	}
	/* a column named twice: lookups would take the first, silently */
	for (int i = 0; rc == SIM_OK && i < n; i++)
		for (int j = 0; j < i; j++)
			if (*row[i] && !strcmp(row[i], row[j])) {
				sim_diag_error(diag, name, 1, "column '%s' appears twice (columns %d and %d)",
					       row[i], j + 1, i + 1);
				rc = SIM_ECONF;
				break;
			}
	if (rc == SIM_OK) {
		c->ncols = n;
		c->cap = 64;
		c->cells = malloc(c->cap * (size_t)n * sizeof *c->cells);
		c->lines = malloc(c->cap * sizeof *c->lines);
		if (!c->cells || !c->lines) {
			rc = SIM_ENOMEM;
		} else {
			memcpy(c->cells, row, (size_t)n * sizeof *row);
			c->lines[0] = 1;
			c->sep = ps->sep;
			n = 0; /* owned by c now */
			rc = parse_rows(ps, c);
		}
	}
	free_row(row, n);
	free(ps);
	if (rc != SIM_OK) {
		cases_csv_free(c);
		return rc;
	}
	*out = c;
	return SIM_OK;
}

int cases_csv_read(const char *path, cases_csv **out, sim_diag *diag)
{
	*out = NULL;
	/* only a regular file of at most SIM_INPUT_MAX (/dev/zero, a FIFO:
	 * refused, not read without end) */
	char *text;
	size_t len;
	int err = sim_input_read(path, SIM_INPUT_MAX, &text, &len, NULL);
	if (err == ENOMEM)
		return SIM_ENOMEM;
	if (err == EFBIG) {
		sim_diag_error(diag, path, 0, "cannot open: larger than %zu MiB, not a case file",
			       SIM_INPUT_MAX >> 20);
		return SIM_EIO;
	}
	if (err) {
		sim_diag_error(diag, path, 0, "cannot open: %s", sim_input_strerror(err));
		return SIM_EIO;
	}
	int rc = cases_csv_parse(text, len, path, out, diag);
	free(text);
	return rc;
}

void cases_csv_free(cases_csv *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < (c->nrows + 1) * (size_t)c->ncols; i++) {
		if (c->cells)
			free(c->cells[i]);
		if (c->written)
			free(c->written[i]);
	}
	free(c->cells);
	free(c->written);
	free(c->lines);
	free(c->path);
	free(c);
}

size_t cases_csv_rows(const cases_csv *c)
{
	return c->nrows;
}

char cases_csv_sep(const cases_csv *c)
{
	return c->sep;
}

const char *cases_csv_path(const cases_csv *c)
{
	return c->path;
}

int cases_csv_col(const cases_csv *c, const char *name)
{
	for (int i = 0; i < c->ncols; i++)
		if (strcmp(c->cells[i], name) == 0)
			return i;
	return -1;
}

const char *cases_csv_get(const cases_csv *c, size_t row, int col)
{
	if (row >= c->nrows || col < 0 || col >= c->ncols)
		return "";
	return c->cells[(row + 1) * (size_t)c->ncols + (size_t)col];
}

int cases_csv_set(cases_csv *c, size_t row, int col, const char *text)
{
	if (row >= c->nrows || col < 0 || col >= c->ncols)
		return SIM_ECONF;
	size_t n = (c->nrows + 1) * (size_t)c->ncols, at = (row + 1) * (size_t)c->ncols + (size_t)col;
	if (!c->written && !(c->written = calloc(n, sizeof *c->written)))
		return SIM_ENOMEM;
	char *t = strdup(text);
	if (!t)
		return SIM_ENOMEM;
	if (c->written[at])
		free(c->cells[at]); /* set before: the text as written is kept already */
	else
		c->written[at] = c->cells[at];
	c->cells[at] = t;
	return SIM_OK;
}

const char *cases_csv_header(const cases_csv *c, int col)
{
	return col >= 0 && col < c->ncols ? c->cells[col] : NULL;
}

int cases_csv_rename_col(cases_csv *c, int col, const char *name)
{
	if (col < 0 || col >= c->ncols)
		return SIM_ECONF;
	char *t = strdup(name);
	if (!t)
		return SIM_ENOMEM;
	free(c->cells[col]);
	c->cells[col] = t;
	return SIM_OK;
}

const char *cases_csv_written(const cases_csv *c, size_t row, int col)
{
	if (row >= c->nrows || col < 0 || col >= c->ncols)
		return "";
	size_t at = (row + 1) * (size_t)c->ncols + (size_t)col;
	return c->written && c->written[at] ? c->written[at] : c->cells[at];
}

int cases_csv_line(const cases_csv *c, size_t row)
{
	return row < c->nrows ? c->lines[row + 1] : 0;
}

int cases_csv_require(const cases_csv *c, const char *const *cols, sim_diag *diag)
{
	int missing = 0;
	for (; *cols; cols++)
		if (cases_csv_col(c, *cols) < 0) {
			sim_diag_error(diag, c->path, 1, "missing column '%s'", *cols);
			missing++;
		}
	return missing;
}

int cases_get_int(const cases_csv *c, size_t row, const char *col, long def, long *out,
		  sim_diag *diag)
{
	const char *s = cases_csv_get(c, row, cases_csv_col(c, col));
	*out = def;
	if (!*s)
		return SIM_OK;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*end || errno) {
		sim_diag_error(diag, c->path, cases_csv_line(c, row),
			       "column '%s': expected an integer, got '%s'", col, s);
		return SIM_ECONF;
	}
	*out = v;
	return SIM_OK;
}

int cases_get_real(const cases_csv *c, size_t row, const char *col, double def, double *out,
		   sim_diag *diag)
{
	const char *s = cases_csv_get(c, row, cases_csv_col(c, col));
	*out = def;
	if (!*s)
		return SIM_OK;
	char *end;
	double v = strtod(s, &end);
	if (*end || !isfinite(v)) {
		sim_diag_error(diag, c->path, cases_csv_line(c, row),
			       "column '%s': expected a number, got '%s'", col, s);
		return SIM_ECONF;
	}
	*out = v;
	return SIM_OK;
}
