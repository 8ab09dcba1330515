/* conf_int.h - internals shared by the conf module's files. */
#ifndef PODSIM_CONF_INT_H
#define PODSIM_CONF_INT_H

#include "conf.h"

typedef struct conf_entry {
	const char *section, *key, *value;
	conf_loc loc;
	int file; /* file index; -1 for overrides */
} conf_entry;

typedef struct conf_section {
	const char *name;
	conf_loc loc; /* first opening */
	int file;
} conf_section;

struct conf_doc {
	sim_arena *arena;
	const char *root;
	conf_entry *e;
	size_t n, cap;
	conf_section *s;
	size_t ns, scap;
	int nfiles;
};

/* Add or replace a value; a repeat within one file is an error (diag). */
int conf_doc_set(conf_doc *doc, const char *section, const char *key, const char *value,
		 conf_loc loc, int file, sim_diag *diag);
/* Record a section header; a second opening in one file is an error. */
int conf_doc_open_section(conf_doc *doc, const char *name, conf_loc loc, int file, sim_diag *diag);
const conf_entry *conf_doc_find(const conf_doc *doc, const char *section, const char *key);
const conf_section *conf_doc_section(const conf_doc *doc, const char *name);

/* Parse one file's text into doc (includes recurse). `stack` holds the paths
 * of the files being read, outermost first, for cycle detection. */
int conf_parse_text(conf_doc *doc, const char *text, size_t len, const char *path,
		    const char *dir, const char **stack, int depth, sim_diag *diag);

/* The closest name in a list within a small edit distance, or NULL. */
const char *conf_closest(const char *name, const char *const *names, size_t n);

#endif
