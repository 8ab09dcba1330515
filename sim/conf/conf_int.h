/* conf_int.h - internals of the conf module shared by reader.c (files,
 * includes), doc.c (the document: sections, values, overrides, canonical text)
 * and keys.c (key tables). Not for other modules: they use conf.h. */
#ifndef PODSIM_CONF_INT_H
#define PODSIM_CONF_INT_H

#include "conf.h"

/* Where --set values come from. */
#define CONF_CMDLINE "<command line>"

/* One key's final value. file_id is the parse of the file (or -1 for --set)
 * that set it last: a second setting from the same parse is a duplicate, one
 * from another file is an override. */
typedef struct conf_entry {
	const char *key, *value;
	conf_loc loc;
	int file_id;
} conf_entry;

/* A section, with its keys in first-seen order. loc is the first opening;
 * file_id and line the latest opening (for duplicate-section errors). */
typedef struct conf_section {
	const char *name;
	conf_loc loc;
	int file_id, line;
	conf_entry *keys;
	size_t nkeys, cap;
} conf_section;

/* Strings and sections live in the arena; the arrays are malloc'd. */
struct conf_doc {
	sim_arena *arena;
	const char *root;
	conf_section **secs;
	size_t nsecs, cap;
	int next_file_id;
};

/* A new empty document whose root is `root` (copied); NULL on OOM. */
conf_doc *conf_doc_new(const char *root);
conf_section *conf_find_section(const conf_doc *doc, const char *name);
conf_entry *conf_find_entry(const conf_section *s, const char *key);
/* Find or create a section (created with loc as its first opening). NULL on OOM. */
conf_section *conf_add_section(conf_doc *doc, const char *name, conf_loc loc);
/* Add key = value to s, or replace the value, location and file_id of an
 * existing key (which keeps its place in the order). NULL on OOM. */
conf_entry *conf_set(conf_doc *doc, conf_section *s, const char *key, const char *value,
		     conf_loc loc, int file_id);

/* Section and key names: letters, digits, '_' and '-', at least one. */
bool conf_valid_name(const char *s);

/* For "did you mean" notes: if cand is closer to word than *best (start it at
 * INT_MAX) and close enough to be a likely typo (equal ignoring case, or an edit
 * distance of at most max(1, min(3, len/3))), store its distance and return true. */
bool conf_closer(const char *word, const char *cand, int *best);

#endif
