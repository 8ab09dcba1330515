/* conf.h - podsim's configuration layer: .ini files with includes, source
 * locations, command-line overrides and per-module key tables.
 *
 * A scenario is a tree of .ini files. A file may pull in others with
 *     include = ../models/gpt3-175b.ini
 * lines at the top level (before any [section]); paths resolve from the directory
 * of the including file. Included files are read first, in order; keys of the
 * including file then override theirs (that is how a scenario "extends" a base).
 * A [gpu] or [node] section from a file naming another device (`name`) than a
 * file read before it, not one of its own includes, replaces that section: a
 * variant that includes a scenario and then another node file gets none of
 * the first device's keys (reader.c device_sections).
 * Within one file a key repeated in the same section, or a section opened twice,
 * is an error. Include cycles and missing files are errors at the include line.
 *
 * Lines are read by our own reader (inih r55 gives no line numbers and caps lines
 * at 200 bytes): lines over CONF_MAX_LINE bytes and section names over
 * CONF_MAX_SECTION characters are errors, not silent truncation. A UTF-8 BOM at
 * the start of a file is skipped; NUL bytes are an error (binary file).
 *
 * Modules read their sections through a conf_key table (name, type, unit, range,
 * default, help) with conf_read(): unknown keys get a did-you-mean note, values
 * are checked, and several errors are reported at once through sim_diag.
 */
#ifndef PODSIM_CONF_H
#define PODSIM_CONF_H

#include "../core/core.h"

#define CONF_MAX_LINE 198 /* inih r55 reads lines into a 200-byte buffer */
#define CONF_MAX_SECTION 48
#define CONF_MAX_INCLUDE_DEPTH 16

typedef struct conf_doc conf_doc;

/* Where a value came from: file path and 1-based line ("<command line>", 0 for
 * --set overrides). */
typedef struct conf_loc {
	const char *path;
	int line;
} conf_loc;

/* Load path and everything it includes. Errors go to diag; returns SIM_OK,
 * SIM_ECONF (input errors, see diag) or SIM_ENOMEM. On error *out is NULL. */
int conf_load(const char *path, sim_diag *diag, conf_doc **out);
/* Parse from memory (for tests, fuzzing); includes resolve from base_dir. */
int conf_load_string(const char *text, size_t len, const char *name, const char *base_dir,
		     sim_diag *diag, conf_doc **out);
void conf_free(conf_doc *doc);

/* Apply "section.key=value" (from --set). Adds or replaces the value; its
 * location becomes ("<command line>", 0). Malformed text is an error. */
int conf_override(conf_doc *doc, const char *assignment, sim_diag *diag);
/* conf_load, then conf_override for each of sets[0..n) in order (a
 * scenario and the command line's --set): SIM_OK, or the first error with
 * *out NULL. */
int conf_load_set(const char *path, const char *const *sets, size_t n, sim_diag *diag,
                  conf_doc **out);

/* Raw lookup: the value string or NULL; loc (if non-NULL) gets its location. */
const char *conf_get(const conf_doc *doc, const char *section, const char *key, conf_loc *loc);
bool conf_has_section(const conf_doc *doc, const char *section);
/* Location of a section's header (first opening); {path of root, 0} if absent. */
conf_loc conf_section_loc(const conf_doc *doc, const char *section);
/* The root file's path. */
const char *conf_root_path(const conf_doc *doc);

size_t conf_section_count(const conf_doc *doc);
const char *conf_section_name(const conf_doc *doc, size_t i);
size_t conf_key_count(const conf_doc *doc, size_t section);
const char *conf_key_name(const conf_doc *doc, size_t section, size_t i);

/* The resolved configuration as canonical .ini text: sections in first-seen
 * order, keys in first-seen order, final values, no comments, no includes.
 * This is what is stored with a run and hashed. Caller frees with free(). */
char *conf_resolved_text(const conf_doc *doc);

/* Report every section of the document that is not in `known` (NULL-terminated)
 * as an error with a did-you-mean note. Returns the number reported. */
int conf_check_sections(const conf_doc *doc, const char *const *known, sim_diag *diag);

/* A file of another kind given to a command: when the document has a
 * section of kinds[i].section (NULL-terminated list), report one error at
 * its header, "[S] makes this WHAT: run it with 'podsim CMD ROOT'" (ROOT
 * the file given, whichever file of its includes opens the section), and
 * return true, so that the caller stops before listing every section the
 * file lacks. */
typedef struct conf_kind {
	const char *section; /* the section that marks the kind, e.g. "sweep" */
	const char *what;    /* e.g. "a sweep file" */
	const char *cmd;     /* the command that takes it, e.g. "sweep" */
} conf_kind;
bool conf_other_kind(const conf_doc *doc, const conf_kind *kinds, sim_diag *diag);

/* ------------------------------------------------------------ key tables -- */

typedef enum {
	CONF_INT,   /* integer in [min, max], stored as int */
	CONF_REAL,  /* plain number in [min, max], stored as double */
	CONF_QTY,   /* number with a unit (conf_key.unit), stored as double in SI */
	CONF_BOOL,  /* true/false/yes/no/on/off/1/0, stored as bool */
	CONF_ENUM,  /* one of choices[], stored as int index */
	CONF_STR    /* free text up to CONF_STR_MAX-1 bytes, stored in char[CONF_STR_MAX] */
} conf_type;

#define CONF_STR_MAX 128

typedef struct conf_key {
	const char *name;
	conf_type type;
	sim_unit unit;              /* for CONF_QTY */
	double min, max;            /* inclusive range for INT, REAL, QTY */
	const char *def;            /* default as text in the file's syntax; NULL = required */
	const char *const *choices; /* NULL-terminated, for CONF_ENUM */
	size_t offset;              /* offsetof(out struct, field) */
	const char *help;           /* one line */
} conf_key;

/* A comma- or space-separated list of names, each standing for some bits
 * (e.g. "q,k,v" or "mla_up_proj,mlp"): *mask gets the union of the named
 * entries' bits. An unknown name returns SIM_ECONF with it copied to bad
 * (len bytes; bad may be NULL). */
typedef struct conf_flag {
	const char *name;
	unsigned bits;
} conf_flag;
int conf_flags_parse(const char *text, const conf_flag *names, size_t nnames, unsigned *mask,
		     char *bad, size_t len);

/* Fill *out (a struct) from section `section` using keys[0..nkeys). Checks:
 * unknown keys in the section (error + "note: did you mean 'x'?"), missing
 * required keys (error at the section header, or at the root file if the section
 * is absent), bad numbers, units and enum values, out-of-range values. Defaults
 * are applied for absent keys. Returns SIM_OK or SIM_ECONF (errors in diag);
 * continues after errors to report as many as possible. If `section_optional` is
 * true and the section is absent, defaults are applied and required keys are not
 * reported. */
int conf_read(const conf_doc *doc, const char *section, const conf_key *keys, size_t nkeys,
	      void *out, bool section_optional, sim_diag *diag);

/* Location of a key's value for later errors (e.g. plan checks that involve
 * several keys): the key's line if present, else the section header. */
conf_loc conf_key_loc(const conf_doc *doc, const char *section, const char *key);

/* Print a key table for --help-keys: "[section] name  type/unit  default  help". */
void conf_print_keys(FILE *out, const char *section, const conf_key *keys, size_t nkeys);

#endif
