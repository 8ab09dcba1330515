/* test_conf.c - the configuration layer: loading, includes, overrides, line
 * checks, key tables. Every error text is pinned, since users read them.
 * Fixtures live in tests/conf/; tests run from the source root. */
#include "../../sim/conf/conf.h"
#include "check.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Load text as "t.ini" (includes from tests/conf); return rc and keep doc. */
static int load(const char *text, sim_diag *d, conf_doc **doc)
{
	return conf_load_string(text, strlen(text), "t.ini", "tests/conf", d, doc);
}

/* Expect loading to fail with exactly these messages (NULL-terminated). */
static void load_fails(const char *text, const char *const *want)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = (conf_doc *)&doc;
	CHECK_INT(load(text, d, &doc), SIM_ECONF);
	CHECK(doc == NULL);
	size_t n = 0;
	for (; want[n]; n++)
		CHECK_STR(sim_diag_text(d, n), want[n]);
	CHECK_INT(sim_diag_count(d), n);
	sim_diag_free(d);
}

#define FAILS(text, ...) load_fails((text), (const char *const[]){__VA_ARGS__, NULL})

static void test_basic(void)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	CHECK_INT(load("; comment\n# comment\n[a]\nx = 1\n  y=two words ; note\nz = a;b#c\n"
		       "\n[b]\nw =\nurl = http://x#y\n",
		       d, &doc),
		  SIM_OK);
	CHECK_INT(sim_diag_count(d), 0);
	conf_loc loc = {NULL, 0};
	CHECK_STR(conf_get(doc, "a", "x", &loc), "1");
	CHECK_STR(loc.path, "t.ini");
	CHECK_INT(loc.line, 4);
	CHECK_STR(conf_get(doc, "a", "y", NULL), "two words");
	CHECK_STR(conf_get(doc, "a", "z", NULL), "a;b#c"); /* comments need a blank before */
	CHECK_STR(conf_get(doc, "b", "w", NULL), "");
	CHECK_STR(conf_get(doc, "b", "url", NULL), "http://x#y");
	CHECK(conf_get(doc, "a", "w", NULL) == NULL);
	CHECK(conf_get(doc, "c", "x", NULL) == NULL);
	CHECK(conf_has_section(doc, "b") && !conf_has_section(doc, "c"));
	CHECK_INT(conf_section_loc(doc, "b").line, 8);
	CHECK_INT(conf_section_loc(doc, "c").line, 0);
	CHECK_STR(conf_section_loc(doc, "c").path, "t.ini");
	CHECK_STR(conf_root_path(doc), "t.ini");
	CHECK_INT(conf_section_count(doc), 2);
	CHECK_STR(conf_section_name(doc, 1), "b");
	CHECK_INT(conf_key_count(doc, 0), 3);
	CHECK_STR(conf_key_name(doc, 0, 2), "z");
	CHECK(conf_key_name(doc, 0, 3) == NULL && conf_section_name(doc, 2) == NULL);
	CHECK_INT(conf_key_loc(doc, "a", "y").line, 5);
	CHECK_INT(conf_key_loc(doc, "b", "nope").line, 8); /* the section header */
	char *text = conf_resolved_text(doc);
	CHECK_STR(text, "[a]\nx = 1\ny = two words\nz = a;b#c\n\n[b]\nw = \nurl = http://x#y\n");
	free(text);
	conf_free(doc);
	/* An empty document is fine from a string (an empty file is not). */
	CHECK_INT(conf_load_string("", 0, "e.ini", NULL, d, &doc), SIM_OK);
	text = conf_resolved_text(doc);
	CHECK_STR(text, "");
	free(text);
	conf_free(doc);
	CHECK_INT(sim_diag_count(d), 0);
	sim_diag_free(d);
}

static void test_includes(void)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	CHECK_INT(conf_load("tests/conf/top.ini", d, &doc), SIM_OK);
	CHECK_INT(sim_diag_count(d), 0);
	conf_loc loc;
	CHECK_STR(conf_get(doc, "parallel", "tp", &loc), "4"); /* the includer wins */
	CHECK_STR(loc.path, "tests/conf/top.ini");
	CHECK_INT(loc.line, 5);
	CHECK_STR(conf_get(doc, "parallel", "pp", &loc), "2");
	CHECK_STR(loc.path, "tests/conf/base.ini");
	CHECK_INT(loc.line, 4);
	CHECK_STR(conf_get(doc, "model", "name", NULL), "base model");
	CHECK_INT(conf_section_loc(doc, "parallel").line, 2); /* first opening, in base.ini */
	char *text = conf_resolved_text(doc);
	CHECK_STR(text, "[parallel]\ntp = 4\npp = 2\ndp = 8\n\n[model]\nname = base model\n");
	free(text);
	conf_free(doc);
	/* Paths resolve from the including file's directory; shown normalised. */
	CHECK_INT(conf_load("tests/conf/sub/inc.ini", d, &doc), SIM_OK);
	CHECK_STR(conf_get(doc, "parallel", "pp", &loc), "2");
	CHECK_STR(loc.path, "tests/conf/base.ini");
	CHECK_STR(conf_get(doc, "train", "precision", NULL), "fp16");
	conf_free(doc);
	/* From a string, includes resolve from base_dir. */
	CHECK_INT(load("include = top.ini\n[parallel]\npp = 3\n", d, &doc), SIM_OK);
	CHECK_STR(conf_get(doc, "parallel", "tp", NULL), "4");
	CHECK_STR(conf_get(doc, "parallel", "pp", &loc), "3");
	CHECK_STR(loc.path, "t.ini");
	conf_free(doc);
	/* The same file twice (not a cycle) is allowed; the later include wins. */
	CHECK_INT(load("include = base.ini\ninclude = top.ini\ninclude = base.ini\n", d, &doc), SIM_OK);
	CHECK_STR(conf_get(doc, "parallel", "tp", NULL), "1");
	conf_free(doc);
	CHECK_INT(sim_diag_count(d), 0);
	sim_diag_free(d);
}

/* Device files replace, they do not extend (reader.c device_sections): a
 * variant including a scenario (node-a.ini, GPU a) and then another node
 * file (node-b.ini, GPU b) keeps none of a's [gpu] or [node] keys; a file
 * that includes a device file and renames it extends it; keys the includer
 * sets after the swap stay. */
static void test_device_files(void)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	CHECK_INT(load("include = node-a.ini\ninclude = node-b.ini\n", d, &doc), SIM_OK);
	CHECK_STR(conf_get(doc, "gpu", "name", NULL), "b");
	CHECK_STR(conf_get(doc, "gpu", "fitted", NULL), "0.9");
	CHECK_STR(conf_get(doc, "gpu", "peak", NULL), "2");
	CHECK(conf_get(doc, "gpu", "only_a", NULL) == NULL);
	CHECK_STR(conf_get(doc, "node", "name", NULL), "nb");
	CHECK(conf_get(doc, "node", "ring", NULL) == NULL);
	conf_free(doc);
	CHECK_INT(load("include = gpu-a.ini\n[gpu]\nname = custom\n", d, &doc), SIM_OK);
	CHECK_STR(conf_get(doc, "gpu", "name", NULL), "custom");
	CHECK_STR(conf_get(doc, "gpu", "only_a", NULL), "1");
	conf_free(doc);
	CHECK_INT(load("include = node-a.ini\ninclude = gpu-a.ini\n", d, &doc), SIM_OK);
	CHECK_STR(conf_get(doc, "node", "ring", NULL), "3"); /* the same GPU again */
	CHECK_STR(conf_get(doc, "gpu", "only_a", NULL), "1");
	conf_free(doc);
	CHECK_INT(load("include = gpu-a.ini\ninclude = gpu-b.ini\n[gpu]\nonly_a = 5\n", d, &doc),
		  SIM_OK);
	CHECK_STR(conf_get(doc, "gpu", "only_a", NULL), "5");
	CHECK(conf_get(doc, "gpu", "fitted", NULL) != NULL);
	conf_free(doc);
	CHECK_INT(sim_diag_count(d), 0);
	sim_diag_free(d);
}

static void test_include_errors(void)
{
	FAILS("include = nope.ini\n[a]\nx = 1\n",
	      "t.ini:1: error: cannot open include 'nope.ini': No such file or directory");
	FAILS("include = sub\n", "t.ini:1: error: cannot open include 'sub': a directory, not a regular file");
	FAILS("include =\n", "t.ini:1: error: include needs a file name");
	FAILS("include = cycle-a.ini\n",
	      "tests/conf/cycle-b.ini:2: error: include cycle: tests/conf/cycle-a.ini -> "
	      "tests/conf/cycle-b.ini -> tests/conf/cycle-a.ini");
	FAILS("[a]\ninclude = base.ini\n", "t.ini:2: error: 'include' must come before the first [section]");
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	CHECK_INT(conf_load("tests/conf/cycle-a.ini", d, &doc), SIM_ECONF);
	CHECK_STR(sim_diag_text(d, 0), "tests/conf/cycle-b.ini:2: error: include cycle: "
				       "tests/conf/cycle-a.ini -> tests/conf/cycle-b.ini -> "
				       "tests/conf/cycle-a.ini");
	sim_diag_clear(d);
	CHECK_INT(conf_load("tests/conf/nope.ini", d, &doc), SIM_ECONF);
	CHECK_STR(sim_diag_text(d, 0), "tests/conf/nope.ini: error: cannot open: No such file or directory");
	sim_diag_clear(d);
	char empty[] = "/tmp/podsim-empty-XXXXXX";
	int fd = mkstemp(empty);
	if (fd >= 0) {
		close(fd);
		char want[96];
		snprintf(want, sizeof want, "%s: error: empty file", empty);
		CHECK_INT(conf_load(empty, d, &doc), SIM_ECONF);
		CHECK_STR(sim_diag_text(d, 0), want);
		remove(empty);
	}
	sim_diag_free(d);
}

/* A chain of CONF_MAX_INCLUDE_DEPTH + 2 files, each including the next. */
static void test_include_depth(void)
{
	char dir[] = "/tmp/podsim-conf-XXXXXX";
	if (!mkdtemp(dir))
		return;
	char path[96];
	int nfiles = CONF_MAX_INCLUDE_DEPTH + 2;
	for (int i = 0; i < nfiles; i++) {
		snprintf(path, sizeof path, "%s/f%d.ini", dir, i);
		FILE *f = fopen(path, "w");
		if (!f)
			return;
		if (i + 1 < nfiles)
			fprintf(f, "include = f%d.ini\n", i + 1);
		fprintf(f, "[s]\nk%d = %d\n", i, i);
		fclose(f);
	}
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	snprintf(path, sizeof path, "%s/f1.ini", dir); /* depth 16: allowed */
	CHECK_INT(conf_load(path, d, &doc), SIM_OK);
	CHECK_INT(conf_key_count(doc, 0), nfiles - 1);
	conf_free(doc);
	snprintf(path, sizeof path, "%s/f0.ini", dir); /* depth 17: refused */
	CHECK_INT(conf_load(path, d, &doc), SIM_ECONF);
	char want[160];
	snprintf(want, sizeof want, "%s/f16.ini:1: error: includes are nested more than 16 deep", dir);
	CHECK_STR(sim_diag_text(d, 0), want);
	CHECK_INT(sim_diag_count(d), 1);
	sim_diag_free(d);
	for (int i = 0; i < nfiles; i++) {
		snprintf(path, sizeof path, "%s/f%d.ini", dir, i);
		remove(path);
	}
	rmdir(dir);
}

static void test_line_errors(void)
{
	FAILS("[parallel]\ntp = 2\n\ntp = 4\n",
	      "t.ini:4: error: duplicate key 'tp' in [parallel] (first set at line 2)");
	FAILS("[parallel]\ntp = 2\n[x]\n[parallel]\npp = 2\n",
	      "t.ini:4: error: duplicate section [parallel] (first opened at line 1)");
	FAILS("tp = 2\n[a]\n",
	      "t.ini:1: error: key 'tp' is outside any section (only 'include' may come before "
	      "the first [section])");
	FAILS("[a]\ntp 2\n", "t.ini:2: error: expected 'key = value', got 'tp 2'");
	FAILS("[a]\ntp: 2\n", "t.ini:2: error: expected 'key = value', got 'tp: 2'");
	FAILS("[a]\n= 2\n", "t.ini:2: error: missing key name before '='");
	FAILS("[a]\nmicro batch = 2\n",
	      "t.ini:2: error: invalid key name 'micro batch': use letters, digits, '_' and '-'");
	FAILS("[parallel\ntp = 2\n[b]\nx = 1\nx = 2\n",
	      "t.ini:1: error: section header '[parallel' has no closing ']'",
	      "t.ini:5: error: duplicate key 'x' in [b] (first set at line 4)");
	FAILS("[a] x\n", "t.ini:1: error: unexpected text ' x' after the section header");
	FAILS("[]\n", "t.ini:1: error: invalid section name '': use letters, digits, '_' and '-'");
	FAILS("[a.b]\n", "t.ini:1: error: invalid section name 'a.b': use letters, digits, '_' and '-'");
	/* 49 characters: one over CONF_MAX_SECTION (inih would cut at 49 silently). */
	FAILS("[sssssssssssssssssssssssssssssssssssssssssssssssss]\nx = 1\n",
	      "t.ini:1: error: section name 'sssssssssssssssssssssssssssssssssssssssssssssssss' is "
	      "longer than 48 characters");
	/* Several errors in one file are all reported, in order. */
	FAILS("x = 1\n[a]\nb\n[a]\n",
	      "t.ini:1: error: key 'x' is outside any section (only 'include' may come before the "
	      "first [section])",
	      "t.ini:3: error: expected 'key = value', got 'b'",
	      "t.ini:4: error: duplicate section [a] (first opened at line 2)");
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	char sec[CONF_MAX_SECTION + 8];
	memset(sec, 's', sizeof sec);
	snprintf(sec, sizeof sec, "[%.*s]\n", CONF_MAX_SECTION, "ssssssssssssssssssssssssssssssssssssssssssssssssssss");
	CHECK_INT(load(sec, d, &doc), SIM_OK); /* exactly 48: fine */
	conf_free(doc);
	sim_diag_free(d);
}

/* A line of exactly n bytes: "[a]\nk = vvv...\n". */
static char *line_of(size_t n, const char *eol)
{
	char *s = malloc(n + strlen(eol) + 8);
	if (!s)
		abort();
	strcpy(s, "[a]\nk = ");
	memset(s + 8, 'v', n - 4);
	strcpy(s + 4 + n, eol);
	return s;
}

static void test_long_lines(void)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	const char *eols[] = {"\n", "\r\n", ""};
	char want[64];
	snprintf(want, sizeof want, "t.ini:2: error: line is longer than %d bytes", CONF_MAX_LINE);
	for (size_t i = 0; i < 3; i++) {
		char *s = line_of(CONF_MAX_LINE, eols[i]); /* the longest line allowed */
		CHECK_INT(load(s, d, &doc), SIM_OK);
		CHECK_INT(strlen(conf_get(doc, "a", "k", NULL)), CONF_MAX_LINE - 4);
		conf_free(doc);
		free(s);
		s = line_of(CONF_MAX_LINE + 1, eols[i]);
		CHECK_INT(load(s, d, &doc), SIM_ECONF);
		CHECK_STR(sim_diag_text(d, 0), want);
		sim_diag_clear(d);
		free(s);
	}
	/* A very long line is one error, and the lines after it are still read. */
	char *s = line_of(5000, "\nk = 1\nk = 2\n");
	CHECK_INT(load(s, d, &doc), SIM_ECONF);
	CHECK_INT(sim_diag_count(d), 2);
	CHECK_STR(sim_diag_text(d, 0), want);
	CHECK_STR(sim_diag_text(d, 1), "t.ini:4: error: duplicate key 'k' in [a] (first set at line 3)");
	free(s);
	sim_diag_free(d);
}

static void test_bom_binary(void)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	CHECK_INT(conf_load("tests/conf/bom.ini", d, &doc), SIM_OK);
	CHECK_STR(conf_get(doc, "model", "name", NULL), "bom"); /* BOM and \r gone */
	conf_free(doc);
	CHECK_INT(conf_load("tests/conf/binary.ini", d, &doc), SIM_ECONF);
	CHECK_INT(sim_diag_count(d), 1); /* reading stops at the NUL */
	CHECK_STR(sim_diag_text(d, 0), "tests/conf/binary.ini:2: error: NUL byte: not a text file");
	sim_diag_clear(d);
	const char bin[] = "[a]\nx = 1\0\0\0\n";
	CHECK_INT(conf_load_string(bin, sizeof bin - 1, "b.bin", NULL, d, &doc), SIM_ECONF);
	CHECK_STR(sim_diag_text(d, 0), "b.bin:2: error: NUL byte: not a text file");
	/* A BOM is only skipped at the very start. */
	sim_diag_clear(d);
	CHECK_INT(load("[a]\n\xEF\xBB\xBFx = 1\n", d, &doc), SIM_ECONF);
	CHECK_STR(sim_diag_text(d, 0),
		  "t.ini:2: error: invalid key name '\xEF\xBB\xBFx': use letters, digits, '_' and '-'");
	sim_diag_free(d);
}

static void test_override(void)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	CHECK_INT(load("[parallel]\ntp = 2\n", d, &doc), SIM_OK);
	CHECK_INT(conf_override(doc, "parallel.tp=8", d), SIM_OK);
	CHECK_INT(conf_override(doc, " parallel . pp = 4 ", d), SIM_OK);
	CHECK_INT(conf_override(doc, "train.precision=fp8", d), SIM_OK);
	CHECK_INT(conf_override(doc, "parallel.tp=16", d), SIM_OK); /* the last one wins */
	CHECK_INT(conf_override(doc, "scenario.description=a = b.c", d), SIM_OK);
	conf_loc loc;
	CHECK_STR(conf_get(doc, "parallel", "tp", &loc), "16");
	CHECK_STR(loc.path, "<command line>");
	CHECK_INT(loc.line, 0);
	CHECK_STR(conf_get(doc, "parallel", "pp", NULL), "4");
	CHECK_STR(conf_get(doc, "scenario", "description", NULL), "a = b.c");
	CHECK_STR(conf_section_loc(doc, "train").path, "<command line>");
	CHECK_INT(sim_diag_count(d), 0);
	char *text = conf_resolved_text(doc);
	CHECK_STR(text, "[parallel]\ntp = 16\npp = 4\n\n[train]\nprecision = fp8\n\n[scenario]\n"
			"description = a = b.c\n");
	free(text);
	CHECK_INT(conf_override(doc, "parallel.tp", d), SIM_ECONF);
	CHECK_INT(conf_override(doc, "tp=2", d), SIM_ECONF);
	CHECK_INT(conf_override(doc, "parallel.=2", d), SIM_ECONF);
	CHECK_INT(conf_override(doc, "a b.c=2", d), SIM_ECONF);
	CHECK_STR(sim_diag_text(d, 0), "<command line>: error: bad override 'parallel.tp': expected section.key=value");
	CHECK_STR(sim_diag_text(d, 1), "<command line>: error: bad override 'tp=2': expected section.key=value");
	CHECK_STR(sim_diag_text(d, 2), "<command line>: error: bad override 'parallel.=2': expected "
				       "section.key=value, with names of letters, digits, '_' and '-'");
	CHECK_INT(sim_diag_count(d), 4);
	sim_diag_clear(d);
	/* Values that would not read back the same from the resolved text. */
	CHECK_INT(conf_override(doc, "scenario.description=a ;b", d), SIM_ECONF);
	CHECK_INT(conf_override(doc, "scenario.description=#b", d), SIM_ECONF);
	CHECK_INT(conf_override(doc, "scenario.description=a\nb", d), SIM_ECONF);
	char big[CONF_MAX_LINE + 8];
	snprintf(big, sizeof big, "s.k=%0*d", CONF_MAX_LINE - 3, 0); /* one byte too long */
	CHECK_INT(conf_override(doc, big, d), SIM_ECONF);
	big[strlen(big) - 1] = '\0';
	CHECK_INT(conf_override(doc, big, d), SIM_OK);
	CHECK_STR(sim_diag_text(d, 0), "<command line>: error: bad override 'scenario.description=a ;b': "
				       "';' or '#' at the start or after a blank would start a comment");
	CHECK_STR(sim_diag_text(d, 2), "<command line>: error: bad override: a control character "
				       "(byte 0x0a at column 23)"); /* the line break, not echoed */
	CHECK_INT(sim_diag_count(d), 4);
	CHECK_STR(conf_get(doc, "parallel", "tp", NULL), "16"); /* unchanged */
	conf_free(doc);
	sim_diag_free(d);
}

/* ---------------------------------------------------------- key tables -- */

typedef struct cfg {
	char name[CONF_STR_MAX];
	int tp, micro_batch, global_batch, schedule;
	double efficiency, oversub, nic_bw, hbm, latency;
	bool sp;
} cfg;

static const char *const sched_names[] = {"gpipe", "1f1b", NULL};

#define K(f) offsetof(cfg, f)
static const conf_key keys[] = {
	{"name", CONF_STR, SIM_UNIT_NONE, 0, 0, NULL, NULL, K(name), "what it is"},
	{"tp", CONF_INT, SIM_UNIT_NONE, 1, 65536, "1", NULL, K(tp), "tensor-parallel size"},
	{"micro_batch", CONF_INT, SIM_UNIT_NONE, 1, 1048576, "1", NULL, K(micro_batch), "per step"},
	{"global_batch", CONF_INT, SIM_UNIT_NONE, 1, 1e12, NULL, NULL, K(global_batch), "all"},
	{"efficiency", CONF_REAL, SIM_UNIT_NONE, 0, 1, "0.8", NULL, K(efficiency), "fraction"},
	{"oversubscription", CONF_REAL, SIM_UNIT_NONE, 1, HUGE_VAL, "1", NULL, K(oversub), "ratio"},
	{"nic_bw", CONF_QTY, SIM_UNIT_BANDWIDTH, 0, 1e15, "25 GB/s", NULL, K(nic_bw), "per NIC"},
	{"hbm", CONF_QTY, SIM_UNIT_BYTES, 1, 1e15, NULL, NULL, K(hbm), "memory"},
	{"latency", CONF_QTY, SIM_UNIT_TIME, 0, 1, "130 ns", NULL, K(latency), "switch"},
	{"sequence_parallel", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, K(sp), "SP"},
	{"schedule", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "1f1b", sched_names, K(schedule), "pipeline"},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static void test_read_ok(void)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	CHECK_INT(load("[p]\nname = big run\ntp = +8\nglobal_batch = 1536\nefficiency = .5\n"
		       "oversubscription = 3e2\nnic_bw = 200 Gb/s\nhbm = 80 GiB\nlatency = 1.5 us\n"
		       "sequence_parallel = Yes\nschedule = gpipe\n",
		       d, &doc),
		  SIM_OK);
	cfg c;
	memset(&c, 0x55, sizeof c);
	CHECK_INT(conf_read(doc, "p", keys, NKEYS, &c, false, d), SIM_OK);
	CHECK_INT(sim_diag_count(d), 0);
	CHECK_STR(c.name, "big run");
	CHECK_INT(c.tp, 8);
	CHECK_INT(c.micro_batch, 1); /* default */
	CHECK_INT(c.global_batch, 1536);
	CHECK_NEAR(c.efficiency, 0.5, 0);
	CHECK_NEAR(c.oversub, 300, 0);
	CHECK_NEAR(c.nic_bw, 25e9, 1e-12);
	CHECK_NEAR(c.hbm, 80.0 * 1073741824.0, 1e-12);
	CHECK_NEAR(c.latency, 1.5e-6, 1e-12);
	CHECK(c.sp);
	CHECK_INT(c.schedule, 0);
	/* An absent optional section: defaults, required keys cleared, no error. */
	memset(&c, 0x55, sizeof c);
	CHECK_INT(conf_read(doc, "q", keys, NKEYS, &c, true, d), SIM_OK);
	CHECK_INT(sim_diag_count(d), 0);
	CHECK_STR(c.name, "");
	CHECK_INT(c.global_batch, 0);
	CHECK_NEAR(c.nic_bw, 25e9, 1e-12);
	CHECK_NEAR(c.latency, 130e-9, 1e-12);
	CHECK(!c.sp);
	CHECK_INT(c.schedule, 1);
	conf_free(doc);
	sim_diag_free(d);
}

/* Read [p] from text with the table; expect exactly these messages. */
static void read_fails(const char *text, const char *const *want)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	CHECK_INT(load(text, d, &doc), SIM_OK);
	cfg c;
	CHECK_INT(conf_read(doc, "p", keys, NKEYS, &c, false, d), SIM_ECONF);
	size_t n = 0;
	for (; want[n]; n++)
		CHECK_STR(sim_diag_text(d, n), want[n]);
	CHECK_INT(sim_diag_count(d), n);
	conf_free(doc);
	sim_diag_free(d);
}

#define READ_FAILS(text, ...) read_fails((text), (const char *const[]){__VA_ARGS__, NULL})
#define REQ "[p]\nname = n\nglobal_batch = 8\nhbm = 1 GB\n" /* lines 1-4 */

static void test_read_errors(void)
{
	READ_FAILS(REQ "micro_bach = 2\n", "t.ini:5: error: unknown key 'micro_bach' in [p]",
		   "t.ini:5: note: did you mean 'micro_batch'?");
	READ_FAILS(REQ "zzz = 2\n", "t.ini:5: error: unknown key 'zzz' in [p]");
	READ_FAILS(REQ "tp = x\n", "t.ini:5: error: [p] tp: expected an integer, got 'x'");
	READ_FAILS(REQ "tp = 2.0\n", "t.ini:5: error: [p] tp: expected an integer, got '2.0'");
	READ_FAILS(REQ "tp =\n", "t.ini:5: error: [p] tp: expected an integer, got ''");
	READ_FAILS(REQ "tp = 0\n", "t.ini:5: error: [p] tp = 0 is out of range [1, 65536]");
	READ_FAILS(REQ "tp = 99999999999999999999\n",
		   "t.ini:5: error: [p] tp = 99999999999999999999 is out of range [1, 65536]");
	READ_FAILS("[p]\nname = n\nglobal_batch = 3000000000\nhbm = 1 GB\n",
		   "t.ini:3: error: [p] global_batch = 3000000000 is out of range [1, 1000000000000]");
	READ_FAILS(REQ "efficiency = 1.5\n",
		   "t.ini:5: error: [p] efficiency = 1.5 is out of range [0, 1]");
	READ_FAILS(REQ "efficiency = nan\n", "t.ini:5: error: [p] efficiency: expected a number, got 'nan'");
	READ_FAILS(REQ "efficiency = 0x1p-1\n",
		   "t.ini:5: error: [p] efficiency: expected a number, got '0x1p-1'");
	READ_FAILS(REQ "efficiency = 50 %\n", "t.ini:5: error: [p] efficiency: expected a number, got '50 %'");
	READ_FAILS(REQ "oversubscription = 0.5\n",
		   "t.ini:5: error: [p] oversubscription = 0.5 is out of range: must be at least 1");
	READ_FAILS(REQ "nic_bw = 200\n",
		   "t.ini:5: error: [p] nic_bw: missing unit: write '200 Gb/s' or '25 GB/s'");
	READ_FAILS(REQ "nic_bw = 200 GB\n",
		   "t.ini:5: error: [p] nic_bw: 'GB' is a size, expected a bandwidth such as '25 GB/s'");
	READ_FAILS(REQ "nic_bw = -2 TB/s\n",
		   "t.ini:5: error: [p] nic_bw: a bandwidth cannot be negative, got '-2 TB/s'");
	READ_FAILS("[p]\nname = n\nglobal_batch = 8\nhbm = 0 GiB\n",
		   "t.ini:4: error: [p] hbm = 0 GiB is out of range [1 B, 1 PB]");
	READ_FAILS("[p]\nname = n\nglobal_batch = 8\nhbm = nan GiB\n",
		   "t.ini:4: error: [p] hbm: 'nan' is not a finite number");
	READ_FAILS(REQ "latency = 2 s\n", "t.ini:5: error: [p] latency = 2 s is out of range [0 s, 1 s]");
	READ_FAILS(REQ "sequence_parallel = maybe\n",
		   "t.ini:5: error: [p] sequence_parallel: expected true or false, got 'maybe'");
	READ_FAILS(REQ "schedule = 2f2b\n",
		   "t.ini:5: error: [p] schedule: expected one of gpipe, 1f1b; got '2f2b'");
	READ_FAILS(REQ "schedule = 1F1B\n",
		   "t.ini:5: error: [p] schedule: expected one of gpipe, 1f1b; got '1F1B'",
		   "t.ini:5: note: did you mean '1f1b'?");
	char long_name[300];
	snprintf(long_name, sizeof long_name, "[p]\nglobal_batch = 8\nhbm = 1 GB\nname = %0128d\n", 0);
	READ_FAILS(long_name, "t.ini:4: error: [p] name: text is longer than 127 bytes");
	READ_FAILS("\n[p]\nname = n\n", "t.ini:2: error: [p] missing required key 'global_batch'",
		   "t.ini:2: error: [p] missing required key 'hbm'");
	READ_FAILS("[other]\n",
		   "t.ini: error: missing section [p] (required keys: name, global_batch, hbm)");
	/* Many problems in one section: all reported, unknown keys first. */
	READ_FAILS("[p]\ntp = 0\nschedul = gpipe\nnic_bw = 1\nname = n\n",
		   "t.ini:3: error: unknown key 'schedul' in [p]", "t.ini:3: note: did you mean 'schedule'?",
		   "t.ini:2: error: [p] tp = 0 is out of range [1, 65536]",
		   "t.ini:1: error: [p] missing required key 'global_batch'",
		   "t.ini:4: error: [p] nic_bw: missing unit: write '200 Gb/s' or '25 GB/s'",
		   "t.ini:1: error: [p] missing required key 'hbm'");
}

static void test_read_override(void)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	CHECK_INT(load(REQ, d, &doc), SIM_OK);
	CHECK_INT(conf_override(doc, "p.tp=x", d), SIM_OK); /* checked when read */
	cfg c;
	CHECK_INT(conf_read(doc, "p", keys, NKEYS, &c, false, d), SIM_ECONF);
	CHECK_STR(sim_diag_text(d, 0), "<command line>: error: [p] tp: expected an integer, got 'x'");
	CHECK_INT(conf_key_loc(doc, "p", "tp").line, 0);
	conf_free(doc);
	sim_diag_free(d);
}

static void test_sections_and_help(void)
{
	sim_diag *d = sim_diag_new();
	conf_doc *doc = NULL;
	CHECK_INT(load("[parallel]\n[paralel]\n[zzz]\n[Model]\n", d, &doc), SIM_OK);
	const char *const known[] = {"parallel", "model", "train", NULL};
	CHECK_INT(conf_check_sections(doc, known, d), 3);
	CHECK_STR(sim_diag_text(d, 0), "t.ini:2: error: unknown section [paralel]");
	CHECK_STR(sim_diag_text(d, 1), "t.ini:2: note: did you mean [parallel]?");
	CHECK_STR(sim_diag_text(d, 2), "t.ini:3: error: unknown section [zzz]");
	CHECK_STR(sim_diag_text(d, 3), "t.ini:4: error: unknown section [Model]");
	CHECK_STR(sim_diag_text(d, 4), "t.ini:4: note: did you mean [model]?");
	CHECK_INT(sim_diag_count(d), 5);
	conf_free(doc);
	sim_diag_free(d);
	FILE *f = tmpfile();
	conf_print_keys(f, "p", keys, 3);
	rewind(f);
	char buf[512] = "";
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	CHECK_STR(buf, "[p]\n"
		       "  name                 text                     (required)   what it is\n"
		       "  tp                   integer 1..65536         1            tensor-parallel size\n"
		       "  micro_batch          integer 1..1048576       1            per step\n\n");
}

/* conf_flags_parse: commas and spaces separate names, each name adds its
 * bits (a group name all of its members'), an unknown one is an error that
 * names it; an empty list is no bits. */
static void test_flags(void)
{
	static const conf_flag names[] = {{"a", 1}, {"b", 2}, {"c", 4}, {"ab", 3}};
	unsigned m = 99;
	char bad[16] = "";
	CHECK_INT(conf_flags_parse("a, c", names, 4, &m, bad, sizeof bad), SIM_OK);
	CHECK_INT((int)m, 5);
	CHECK_INT(conf_flags_parse(" ab ,c,", names, 4, &m, bad, sizeof bad), SIM_OK);
	CHECK_INT((int)m, 7);
	CHECK_INT(conf_flags_parse("", names, 4, &m, bad, sizeof bad), SIM_OK);
	CHECK_INT((int)m, 0);
	CHECK_INT(conf_flags_parse("a,abc", names, 4, &m, bad, sizeof bad), SIM_ECONF);
	CHECK_STR(bad, "abc");
	CHECK_INT(conf_flags_parse("d", names, 4, &m, NULL, 0), SIM_ECONF);
}

int main(void)
{
	test_flags();
	test_basic();
	test_includes();
	test_device_files();
	test_include_errors();
	test_include_depth();
	test_line_errors();
	test_long_lines();
	test_bom_binary();
	test_override();
	test_read_ok();
	test_read_errors();
	test_read_override();
	test_sections_and_help();
	return check_done();
}
