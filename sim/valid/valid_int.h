/* valid_int.h - internals shared by the files of the valid module. */
#ifndef PODSIM_VALID_INT_H
#define PODSIM_VALID_INT_H

#include "valid.h"

/* The software-stack table (stacks.c, topologies/frameworks/stacks.csv). */
typedef struct valid_stack {
	char match[128];
	char framework[64];     /* the case's framework column must contain it ("" = any) */
	int year_from, year_to; /* 0 / 9999 when open */
	char profile[64];       /* topologies/frameworks/PROFILE.ini */
	char attention[16];     /* "flash", "unfused" or "" (the profile's) */
	char label[48];         /* the source group's name, or "" */
	int zero_from;          /* applies only to cases of this ZeRO stage or
				 * higher (0 = any) */
	int tp_from;            /* applies only to cases of at least this tp
				 * (0 = any) */
	int line;               /* in stacks.csv */
} valid_stack;
typedef struct valid_stacks valid_stacks;
/* A line of the recipe table (recipes.c, topologies/frameworks/recipes.csv),
 * loaded with stacks.csv and owned by the same object. */
typedef struct valid_recipe {
	char match[128];    /* in the case's source */
	char model[64];     /* in the case's model column */
	char parallel[512]; /* "key = value" of [parallel], "model.key = value"
			     * or "train.key = value", ';'-joined */
	int line;           /* in recipes.csv */
} valid_recipe;
int valid_recipes_load(const char *datadir, valid_recipe **out, size_t *n, sim_diag *diag);
const valid_recipe *valid_recipe_pick(const valid_recipe *v, size_t n, const char *source,
				      const char *model);
/* The first recipe line that applies to a case of `source` and `model`, or
 * NULL. */
const valid_recipe *valid_recipe_find(const valid_stacks *t, const char *source,
				      const char *model);
/* The first recipe line that applies to a case of `source` and `model`
 * whose tp and pp agree with the case's (where both give them): a line of
 * another plan describes another run (stacks.c). */
const valid_recipe *valid_recipe_find_plan(const valid_stacks *t, const char *source,
					   const char *model, const char *tp, const char *pp);
/* The recipe line of a case (valid_recipe_find_plan on the shipped tables of
 * opt) by its source and its model column followed by the model's shape
 * and the run's GPUs, "{layers=L,hidden=H} {gpus=G}" (any column may be
 * empty), so that a benchmark's model is known by its name or by its
 * dimensions, and one run of a paper's by its GPUs; NULL without one. */
const valid_recipe *valid_row_recipe(const valid_options *opt, const cases_csv *c, size_t row);
/* The value of `key` ("model.ffn", "sequence_parallel") in recipe line r,
 * into out; empty when r is NULL or has no such key. Returns out. */
const char *valid_recipe_value(const valid_recipe *r, const char *key, char *out, size_t len);
/* A measured row's plan refused only by its profile's missing-feature
 * rules (runs_schedules, runs_zero, runs_tp, ...): each opened in the row
 * text's [framework] section and said; false (nothing written) where any
 * error of `d` is something else (waive.c). */
bool valid_rule_waivers(const sim_diag *d, sim_buf *out, char *assumed, size_t alen);
/* For --scenario: the rules the prediction sets aside for a row, found by
 * loading `probe` (the row's text with includes relative to datadir), set
 * aside in `text` (the text printed, its includes absolute), said. */
void valid_printed_waivers(const sim_buf *probe, const char *datadir, sim_buf *text,
                           char *assumed, size_t alen);
/* A training file's batches written in tokens whose row leaves seq_len
 * open ("4M tokens" of a model named only): the seq_len the row runs (its
 * recipe's, its model file's, else GPT-3's 2048, as runs.c's reader takes
 * an open one) written into the cell, so that valid_case_numbers reads the
 * batch as sequences of it; the reader says where it came from, as of any
 * open seq_len (runs.c). Before valid_case_numbers; SIM_ENOMEM or SIM_OK. */
int valid_token_seq_len(cases_csv *c, const valid_options *opt);
/* A [model] column of a case row, else its recipe line's model.<col> (the
 * model as the source's benchmark defined it), else "". */
const char *valid_arch_value(const cases_csv *c, size_t row, const valid_recipe *r,
			     const char *col, char *out, size_t len);
/* The keys of recipe line r with the prefix `sect` ("model." or "train.";
 * "" for the [parallel] keys) written without it into the section of b that
 * starts at offset `from`, each but a key the section already has, and
 * named as the case's assumption. */
void valid_put_recipe(sim_buf *b, size_t from, const valid_recipe *r, const char *sect,
		      char *assumed, size_t alen);
/* Read topologies/frameworks/FILE under datadir (its path into path) and
 * require its columns cols; SIM_ECONF with the reader's or the column's
 * error in diag. Shared by the stack and recipe tables. */
int valid_table_read(const char *datadir, const char *file, const char *const *cols, char *path,
		     size_t plen, cases_csv **out, sim_diag *diag);
int valid_stacks_load(const char *datadir, valid_stacks **out, sim_diag *diag);
void valid_stacks_free(valid_stacks *t);
/* What a case ran that a stack row may be conditioned on: its ZeRO stage
 * and tensor-parallel size (0 when the case leaves them open). */
typedef struct valid_ran {
	int zero, tp;
} valid_ran;
/* The first row of the table that applies to `source` and a case that ran
 * `ran` (rows naming a framework never apply; rows with a zero_from apply
 * from that stage on, with a tp_from from that tp on), or NULL. */
const valid_stack *valid_stack_find(const valid_stacks *t, const char *source, valid_ran ran);
/* The same for a case whose framework column reads `framework`: rows naming
 * one apply when it occurs in it. */
const valid_stack *valid_stack_find_fw(const valid_stacks *t, const char *source,
				       const char *framework, valid_ran ran);
/* The k-th (from 0) row naming a framework that applies to `source` and
 * `ran`, or NULL: the stacks a source that ran several has rows for
 * (ATorch's FSDP and DeepSpeed 3D runs), among which a case leaving its
 * framework column open is read (valid_open_framework). */
const valid_stack *valid_stack_named_nth(const valid_stacks *t, const char *source,
					 valid_ran ran, size_t k);
/* The framework profile a case's framework column `fw` names when it is not
 * a profile's file name itself ("Megatron-LM", "DeepSpeed", "Nanotron",
 * "PyTorch FSDP", "megatron-core 0.8"): the first stacks.csv row (with a
 * match, for any framework column) whose match the name holds, dated by the
 * row's source; else the name lower-cased with '-' for blanks, before any
 * '(' or '+', shortened at its last '-' until a profile has it. Writes the
 * profile to out and the stack row (or NULL) to *st; returns how it was
 * found ("its profile", "stacks.csv", "its name"), or NULL when nothing
 * names a profile (stacks.c). */
const char *valid_framework_profile(const valid_options *opt, const char *fw, const char *source,
                                    valid_ran ran, char *out, size_t len, const valid_stack **st);
/* A row's verdict as validate reports it: "fits", "tight" or "oom"
 * (plan_verdict_name's "out of memory" shortened for the table and JSON). */
const char *valid_verdict_name(plan_verdict v);
/* Whether `hay` holds `needle`, ASCII case aside (an empty needle: true). */
bool valid_contains_ci(const char *hay, const char *needle);
/* A Llama-family model by its name (Llama, Mistral, Mixtral, Qwen): SwiGLU,
 * RMSNorm and no biases even where its ffn happens to be 4 x hidden. */
bool valid_llama_family(const char *model);
/* Whether a row's model is SwiGLU (with RMSNorm and no biases): an ffn other
 * than 4 x hidden, or one of 4 x hidden in a Llama-family model or under
 * nanotron's Llama code (said as the row's assumption); false without an
 * ffn. runs.c; training and memory rows alike. */
bool valid_swiglu(const char *model, const char *profile, long hidden, long ffn,
		  char *assumed, size_t alen);
/* Whether nanotron's scaling benchmark ties the row's embeddings: a SwiGLU
 * model under the nanotron profile with an ffn below 10,000 (its 1B and 3B;
 * said). runs.c. */
bool valid_nanotron_tied(const char *profile, bool swiglu, long ffn, char *assumed, size_t alen);
/* The latest year 2015-2035 written in the source text (a publication or
 * commit date); where none, an MLPerf round's ("MLPerf Training v2.1":
 * 2022); 0 otherwise. */
int valid_source_year(const char *source);
/* The source's identity: its text before the first '(' with a trailing
 * "row N" dropped (one group per publication, not per table row). */
void valid_source_key(const char *source, char *out, size_t len);

/* The model file models/<name>.ini of a case's model column `model`, <name>
 * the column lower-cased with spaces as '-' ("Qwen-14B" -> qwen-14b), or
 * the file whose name equals it but for '-' ("Llama 2 7B" -> llama2-7b):
 * true when one exists, with its base name in name and its source key in
 * src (memrows.c; the memory and training rows' open architecture columns). */
bool valid_model_file(const char *model, const char *datadir, char *name, size_t nlen, char *src,
                      size_t slen);
/* [model] key `key` of the model file of a case's model column
 * (valid_model_file), into out; "" without one. Returns out (runs.c). */
const char *valid_model_file_key(const char *datadir, const char *model, const char *key,
                                 char *out, size_t len);
/* The GPU file of a case's gpu column: the column, or for the memory
 * schema's names without a form factor (h100-80g, a100-80g, a100-40g) the
 * SXM part's, *assumed then saying so (runs.c; training and microbenchmark
 * rows). */
const char *valid_gpu_alias(const char *gpu, const char **assumed);
/* A row whose gpu column is open: the GPU file its note, else its source,
 * else its model names (the family standing alone as a word, with the
 * qualifiers after it: "8 x H100 80GB" h100-sxm5-80g), `said` the
 * assumption; where none names one, the GPU whose baseboard its node_intra
 * is (NVSwitch gen 2, 3, 4, the DGX-1's mesh; PCIe names none); NULL where
 * neither gives one or the first text that names any names several
 * families (`said` then the reason) (gpuname.c). */
const char *valid_gpu_named(const cases_csv *c, size_t row, char *said, size_t slen);
/* The node_intra of a row that leaves it open: the baseboard every 8-GPU
 * server of the GPU has (HGX A100 and H100/H200/H800 with NVSwitch, DGX
 * B200, DGX-1's hybrid cube-mesh for V100 SXM2, PCIe cards on their PCIe
 * generation: NVIDIA's HGX and DGX datasheets, hardware.csv's node rows);
 * NULL for a GPU without one (runs.c). */
const char *valid_default_intra(const char *gpu);
/* The node file (topologies/nodes/) a training row on GPU file `gpu` with
 * its node_intra open runs on: valid_default_intra's baseboard; NULL if
 * none is shipped. */
const char *valid_default_node(const char *gpu);
/* The node file of a node_intra for a GPU file (nvswitch-gen2: DGX A100 40
 * or 80 GB, HGX A800; gen3: DGX H100, HGX H800, HGX H200; gen4: DGX B200,
 * GB200 NVL72; the DGX-1 mesh; the PCIe boxes of their cards), NULL where
 * none is shipped (node.c; micro.c's rows too). */
const char *valid_node_template(const char *intra, const char *gpu);
/* The 4-GPU baseboard (topologies/nodes/) standing for 8-GPU node template
 * `tmpl` in a row of gpn = 4 GPUs a node: HGX A100 / H100 4-GPU, NVLink
 * between every pair, no NVSwitch, a NIC per GPU; NULL otherwise (node.c;
 * training and microbenchmark rows). */
const char *valid_board4(const char *tmpl, long gpn);
/* The NICs a node of gpn GPUs keeps of topologies/nodes/<tmpl>.ini where
 * its box holds more GPUs (its NICs per GPU, rounded, at least 1), with the
 * assumption in `said`; 0 where the box holds gpn or fewer (node.c;
 * training and microbenchmark rows whose NIC count is open). */
long valid_nics_per_gpu(const char *datadir, const char *tmpl, long gpn, char *said, size_t len);
/* [section] key `key` of <datadir>/<dir>/<name>.ini as the loader reads it
 * (includes, later values over earlier ones) into out, "" where the file or
 * the key is not; returns out (node.c). */
const char *valid_ini_key(const char *datadir, const char *dir, const char *name,
                          const char *section, const char *key, char *out, size_t len);
/* A training row's hardware: its GPU file, node template and GPUs per node,
 * each open one's default said in `assumed`; NULL, or why the row has none
 * (in `why`) (node.c). */
const char *valid_row_hardware(const cases_csv *c, size_t row, const char **gpu_out,
                               const char **tmpl_out, long *gpn_out, char *assumed, size_t alen,
                               char *why, size_t whylen);
/* The precision of a row that leaves it open: bf16, the training default
 * of every GPU with a bf16 tensor path (A100 on); V100 has none, so fp16
 * (runs.c; training, memory and GEMM rows alike). */
const char *valid_default_precision(const char *gpu);
/* Append one assumption to a row's list, "; "-separated, cut to len
 * (runs.c; the training and memory rows). */
void valid_assume(char *buf, size_t len, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Append what the loaded plan assumed beyond the row's text: the
 * framework's pipeline split, its vocabulary padding, the interleaved
 * schedule's micro-batch group (plan_layout_assumption,
 * plan_vocab_assumption, plan_vp_group_assumption; runs.c, the training
 * and memory rows). */
void valid_plan_assumptions(const plan_scenario *s, char *buf, size_t len);
/* An open ZeRO stage (the row's column, its recipe and any offload leave
 * it open, nothing tuned it): where the framework profile `profile` runs
 * one by default ([framework] zero_default: FSDP's FULL_SHARD), that stage
 * for a plan of pp stages and dp_cp ranks written into b ("zero = N") and
 * said; else the plan key's default said, "zero 0 (not published)". */
void valid_open_zero(sim_buf *b, const valid_options *opt, const char *profile, long pp,
                     long dp_cp, char *assumed, size_t alen);
/* The stage valid_open_zero writes (0 where it writes none). */
int valid_open_zero_stage(const valid_options *opt, const char *profile, long pp, long dp_cp);
/* An open head count: heads 128 wide (GPT-3 175B's, Llama's, BLOOM's,
 * most of Megatron-LM SC21's), else 64, a multiple of the row's kv_heads
 * (kv > 0), else as many as the K/V heads; written into b ("heads = N")
 * and said; nothing where none divides (the loader then names it). Both
 * readers. */
void valid_open_heads(sim_buf *b, long hidden, long kv, char *assumed, size_t alen);
/* The GPT layer's defaults an open K/V head count (multi-head attention) and
 * an open ffn (4 x hidden) take, the loader's own, said (both readers). */
void valid_open_shape_said(bool kv_open, bool ffn_open, char *assumed, size_t alen);
/* An open vocabulary: Llama 2's 32,000 for SwiGLU layers, else GPT-2's
 * 50,257, written into b ("vocab = N") and said (both readers). */
void valid_open_vocab(sim_buf *b, bool swiglu, char *assumed, size_t alen);
/* An open seq_len's documented default (runs.c, both readers): a Llama 3
 * named 8,192, a Llama 2 (or Code Llama) 4,096, other SwiGLU layers Llama
 * 2's 4,096, GPT-family layers GPT-3's 2,048; the reason into *why. */
long valid_open_seq_len(const char *model, bool swiglu, const char **why);
/* The "; "-separated assumptions as comments of a row's scenario text, one
 * "; assumed: ..." line each (runs.c). */
void valid_put_assumed(sim_buf *out, const char *assumed);

/* Predict one calibration.csv row (a training run) into v (id already set). */
void valid_training_row(const cases_csv *c, size_t row, const valid_options *opt, valid_row *v);
/* A training row's degrees its recipe line gives where the row leaves them
 * open (tp, pp: a run script's, recipes.csv), written into the cells; then,
 * a row that leaves tp, pp and dp all open and that tp 1, pp 1
 * cannot run (too few sequences for its replicas, or out of memory): the
 * layout of the fastest prediction that fits of tp 1-8 inside a node and
 * pp 1-64 in powers of two filling the GPUs, as a tuned benchmark ran,
 * written into its tp and pp cells (their text as written stays empty:
 * put_open_plan says it); left open where none runs. Before
 * valid_training_row; SIM_ENOMEM or SIM_OK. */
int valid_open_layout(cases_csv *c, size_t row, const valid_options *opt);

/* What the reader settles for a row's open plan columns by simulating the
 * row (valid_tuned_plan, tune.c): the micro-batch (0: the row's column, else 1), the
 * recomputation (NULL: the row's column, else none), the ZeRO stage
 * (-1: the row's column, else 0) and sequence parallelism (false: the
 * row's column, else the framework's default). */
typedef struct {
	long mb;
	const char *recompute;
	int zero;
	bool sp;      /* sequence_parallel = true where the column is open */
	bool sp_open; /* ... and the search ranked it (the sentence's) */
	bool for_speed; /* the defaults fitted: ranked for speed with the micro-batch */
	bool capped;    /* a micro-batch above the tuned one did not fit */
	long above;     /* tuned_micro_batch tries only micro-batches above this */
	bool partial; /* recompute full of the fewest layers a chunk that fit */
	int rc_layers; /* ... found: recompute_layers (0: all) */
	bool fast;     /* ranked on the closed-form network (alpha-beta) */
} valid_tune;
/* A row whose model, source or note names LoRA or QLoRA: its [train] keys
 * (lora_rank, targets, dropout; NF4 base weights for QLoRA) at the note's
 * rank or the documented default, said (lora.c). */
void valid_put_lora(sim_buf *b, const cases_csv *c, size_t row, char *assumed, size_t alen);
/* The row's open plan columns settled by simulating it (tune.c). */
valid_tune valid_tuned_plan(const cases_csv *c, size_t row, const valid_options *opt);
/* The scenario text of training row `row` into b, its includes under
 * `incdir`, its open plan columns `tune`'s, each open column's default said
 * in `assumed`; NULL, or why the row cannot run (in `why`) (runs.c). */
const char *valid_row_text(const cases_csv *c, size_t row, const char *incdir,
                           const valid_options *opt, const valid_tune *tune, sim_buf *b,
                           char *assumed, size_t alen, char *why, size_t whylen);
/* The row's framework profile and attention path (its framework column,
 * else stacks.csv's row for its source, else megatron-core), said; `name`
 * the resolved name; NULL, or why not (runs.c). */
const char *valid_row_stack(const cases_csv *c, size_t row, const valid_options *opt,
                            const char **profile_out, const char **attention_out, char *name,
                            size_t nlen, char *assumed, size_t alen);
/* topologies/frameworks/<profile>.ini read into *fw as plan reads it; false
 * when it does not load (runs.c). */
bool valid_load_profile(const valid_options *opt, const char *profile, plan_framework *fw);
/* A plan column of the row, else its recipe line's value, into buf (runs.c). */
const char *valid_plan_col(const cases_csv *c, size_t row, const valid_recipe *rec,
                           const char *col, char *buf, size_t len);
/* The row's dp, else the degree that fills its GPUs; 0 when neither (runs.c). */
long valid_row_dp(const cases_csv *c, size_t row);
/* The column (tp's or pp's) a row leaves open beside the other degree and a
 * written dp, the filling degree in *fill; -1 otherwise (runs.c). */
int valid_filled_degree(const cases_csv *c, size_t row, long *fill);
/* The row's global batch, else its recipe line's, else 0 (runs.c). */
long valid_row_global_batch(const cases_csv *c, size_t row, const valid_recipe *rec);
/* The global batch the row runs (its column's or its recipe's, rounded to
 * whole micro-batches per replica as its authors rounded it; one a replica
 * where neither gives one) at micro-batch `mb` (the column's, else mb, else
 * 1); *how says which (runs.c). */
long valid_row_batch(const cases_csv *c, size_t row, const valid_recipe *rec, long mb, int *how);
/* The scenario text of a training row with includes under datadir; SIM_ECONF with
 * the reason in why when the row cannot be simulated. */
int valid_row_scenario(const cases_csv *c, size_t row, const valid_options *opt, sim_buf *out,
		       char *why, size_t why_len);
/* Predict one microbench.csv row into v (id already set). */
void valid_micro_row(const cases_csv *c, size_t row, const valid_options *opt, valid_row *v);
/* Predict one memory.csv row (a measured peak) into v; its scenario text
 * (memrows.c). */
void valid_memory_row(const cases_csv *c, size_t row, const valid_options *opt, valid_row *v);
int valid_memory_scenario(const cases_csv *c, size_t row, const valid_options *opt, sim_buf *out,
			  char *why, size_t why_len);
/* A memory row's scenario text, its includes under incdir, its assumptions
 * appended to assumed and the measured stage to *stage; NULL, or why the
 * row cannot be simulated (memrows.c). */
const char *valid_memory_text(const cases_csv *c, size_t row, const char *incdir,
                              const valid_options *opt, sim_buf *b, char *assumed, size_t alen,
                              int *stage);
/* A memory row that leaves its framework column open while stacks.csv has
 * rows naming the frameworks its source ran: the cell written with the
 * first of them whose profile runs the row's plan, else the first
 * (memopen.c); SIM_ENOMEM, else SIM_OK. */
int valid_open_framework(cases_csv *c, size_t row, const valid_options *opt);
/* The assumption a cell valid_open_framework wrote stands for, said. */
void valid_open_framework_said(const cases_csv *c, size_t row, const valid_options *opt,
                               char *assumed, size_t alen);
/* Fill the summary of r from its rows. */
void valid_summarize(valid_report *r);

/* Fabric calibration rows (fabric.c): append r to f; nccl-tests' bus
 * bandwidth factor of a collective on n ranks. */
int valid_fab_add(valid_fab_fit *f, const valid_fab_row *r);
double valid_fab_factor(net_coll coll, double n);

/* Whether a collective row's benchmark times each call alone, host issue
 * included (stas00's all_reduce_bench.py named in its source or note;
 * micro.c's header comment), and that issue on gpu: its launch and the
 * default [framework] profile's op_overhead. Shared by validate's
 * microbenchmark rows and calibrate --fabric. */
bool valid_blocking_bench(const cases_csv *c, size_t row);
/* The shipped EFA cluster of a GPU type (topologies/FILE: its node file's EFA
 * NICs, the aws-ofi-nccl tuner of its instance; p5's and P6-B200's with their
 * fabric fitted by podsim calibrate --fabric, topologies/calib/efa-*.ini),
 * where a row measured on AWS EFA runs (training rows, runs.c; collective
 * rows, micro.c); NULL for a GPU no EFA instance carries. */
const char *valid_efa_cluster(const char *gpu);
/* Text in lower case into out (len bytes, cut short). */
void valid_lower(const char *s, char *out, size_t len);
/* Column `col`'s value v as the readers take it (loose.c): for a column
 * sources spell loosely (precision, optimizer, memory_kind, fabric,
 * recompute, offload, sequence_parallel, flash_attention, trainable, kind)
 * the schema's value it names ("BF16" -> bf16, "AdamW 8-bit" -> adam8bit,
 * "RoCE" -> roce-fat-tree, "all_reduce" -> allreduce), else v itself. */
const char *valid_loose(const char *col, const char *v);
/* Each loosely read column of the row whose value was read as another
 * ("precision 'BF16' read as bf16"), said. */
void valid_loose_assume(const cases_csv *c, size_t row, char *assumed, size_t alen);
/* Whether v, as valid_loose reads it, is one of the schema's values of a
 * column read loosely (or empty; any value of another column): false for a
 * text no reading names ("Slingshot-11" as a fabric). */
bool valid_loose_named(const char *col, const char *v);
/* The numeric columns of the case schemas (numbers.c), in the order the
 * number checks report them: a count (at least 1 when given), an integer
 * below 2^31, or a real; and the unit a value written with one is read in,
 * `per` SI units (seconds, bytes, bytes/s) to the column's unit. */
typedef enum { VALID_NUM_COUNT, VALID_NUM_INT, VALID_NUM_REAL } valid_num_kind;
typedef struct valid_numcol {
	const char *col;
	valid_num_kind kind;
	sim_unit unit;
	double per;
} valid_numcol;
const valid_numcol *valid_numeric_cols(size_t *n);
/* Seconds in one `unit` written as sources write it ("ms", "sec", "usec",
 * "minutes"; sim_unit_parse's times), 0 if it is no time. */
double valid_unit_seconds(const char *unit);
/* The fastest NIC a case row may run, Gb/s: XDR InfiniBand's 4x port
 * (numbers.c ib_generation's table) and ConnectX-8's 800 GbE; a nic_gbps
 * above it beside several NICs is a node's total (runs.c). */
#define VALID_NIC_MAX_GBPS 800
/* SI units (seconds, bytes/s, ...) in one `unit` of the given kind, written
 * as sources write it ("GBps", "GB/sec", "Gbps"), 0 if it is none of that kind. */
double valid_unit_si(const char *unit, sim_unit kind);
/* A leading number with its thousands separators (',', '_' or ' ' before
 * each group of three digits; in a column of whole numbers, `whole`, or
 * before a decimal point) into *v, the text after it, spaces skipped, in
 * *rest; false where the text starts with none (numbers.c). */
bool valid_lead_number(const char *t, bool whole, double *v, const char **rest);
/* The schema's number that `text` gives in numeric column `col`, read as
 * that column's cells are ("256MB" a bytes cell's 268435456), into out[];
 * false where it gives none. */
bool valid_cell_reading(const char *col, const char *text, char *out, size_t len);
/* Numeric fields written loosely ("1,024", "512 GPUs", "TP=8", "1.25 s",
 * "256MB", "~1.2", "ZeRO-1", "interleaved", "n/a") rewritten in the loaded
 * file as the schema's number, or empty where the schema's empty means the
 * same (numbers.c); a field no reading matches stays as written, for the
 * number checks to report. SIM_OK or SIM_ENOMEM. */
int valid_loose_numbers(cases_csv *c);
/* Whether a field's text says its run ran out of memory ("OOM", "CUDA OOM",
 * "out of memory"): a measured peak or step written so is read as none, the
 * run's out-of-memory mark (memrows.c, runs.c). */
bool valid_oom_text(const char *t);
/* Does a zero cell name DeepSpeed's ZeRO++ ("ZeRO++", "zero3++", "zeropp":
 * stage 3 with its options, runs.c put_open_plan)? */
bool valid_zeropp_text(const char *t);
/* Does a text name FSDP's hybrid sharding ("HYBRID_SHARD",
 * "_HYBRID_SHARD_ZERO2", "HSDP"): ZeRO inside a node's GPUs, replicas
 * across nodes (valid_shard_node)? */
bool valid_hybrid_shard_text(const char *t);
/* shard_size = gpn into b where `text` names hybrid sharding and the dp x cp
 * ranks span more than a node of gpn GPUs, said (runs.c). */
void valid_shard_node(sim_buf *b, const char *text, long gpn, long dp_cp, char *assumed,
                      size_t alen);
/* The ZeRO stage a free text names anywhere in it (a memory row's
 * framework column: "DeepSpeed ZeRO-3", "Axolotl (DeepSpeed ZeRO-2)",
 * "FSDP SHARD_GRAD_OP", "FSDP NO_SHARD", "Megatron distributed
 * optimizer"); -1 where it names none. */
int valid_zero_named(const char *t);
/* Whether a free text (a memory row's note or framework column) says the
 * run recomputed its activations: 1 ("gradient checkpointing",
 * "activation checkpointing", "--checkpoint-activations", "AC",
 * torchtitan's "activation_checkpoint.mode = full"), 0 where it
 * negates the phrase ("no gradient checkpointing",
 * "gradient_checkpointing=False"), -1 where it names none (or selective
 * checkpointing, whose modules it does not say); the phrase as written
 * into phrase[len]. */
int valid_checkpointing_named(const char *t, char *phrase, size_t len);
/* valid_checkpointing_named on a row's framework column, else its note;
 * which one said it into *where ("framework column", "note"). */
int valid_recompute_named(const cases_csv *c, size_t row, const char **where, char *phrase,
                          size_t len);
/* The sequence parallelism an open sequence_parallel cell's note names
 * (its flag or key, on or negated; Megatron's TP overlap, which asserts
 * it): 1, 0, or -1; the phrase into phrase[] (numbers.c). */
int valid_sp_named(const cases_csv *c, size_t row, char *phrase, size_t len);
/* The fabric an open fabric cell's note, else source, names as a word
 * (RoCE, EFA, InfiniBand or "IB", HDR, NDR, Omni-Path): the schema's name,
 * NULL where none or several; the word into word[] (numbers.c). */
const char *valid_fabric_named(const cases_csv *c, size_t row, char *word, size_t len);
/* The message size an open bytes cell's collective row names in its note:
 * a size with a byte unit beside the word "message(s)" ("message '256MB'",
 * "messages of 1 GiB", "a 256 MB message"), read as a bytes cell is; the
 * size as written into word[], NULL where none (named.c). */
const char *valid_bytes_named(const cases_csv *c, size_t row, char *word, size_t len);
/* The counter an open memory_kind cell's row names in its note, else its
 * source (torch.cuda.max_memory_allocated / _reserved, memory_stats' keys,
 * "Mem Alloc" / "Mem Res", nvidia-smi or NVML; the first named that is no
 * alternative of a list, "allocated, reserved or nvidia-smi", nor negated):
 * "allocated", "reserved" or "nvidia-smi", the phrase into word[]; NULL
 * where none (named.c). */
const char *valid_memory_kind_named(const cases_csv *c, size_t row, char *word, size_t len);
/* The ZeRO stage an open zero cell's note names ("ZeRO-3", "zero_stage=2",
 * FSDP's FULL_SHARD / SHARD_GRAD_OP / NO_SHARD, Megatron's distributed
 * optimizer, "dist-opt"; the first not negated; none where it names
 * FSDP's hybrid sharding, whose group the cell's text carries): 0-3, the
 * phrase into phrase[]; -1 where none (named.c). */
int valid_zero_note_named(const cases_csv *c, size_t row, char *phrase, size_t len);
/* The micro-batch an open micro_batch cell's note states per GPU (a flag
 * or key of Megatron, NeMo, Hugging Face, DeepSpeed; "batch N per GPU"),
 * or 0; the phrase into phrase[] (numbers.c). */
long valid_micro_batch_named(const cases_csv *c, size_t row, char *phrase, size_t len);
/* The global batch an open global_batch cell's note states in sequences
 * ("--global-batch-size 512", global_batch_size: 256, "global batch of
 * 1024", "GBS 512"; not one in tokens), else its micro_batch x dp x the
 * micro-batches a replica accumulates (the accumulation phrases of
 * valid_micro_batch_named, both cells given); 0 where neither; the phrase
 * into phrase[] (named.c). */
long valid_global_batch_named(const cases_csv *c, size_t row, char *phrase, size_t len);
/* The precision an open precision cell's note names (its first 16-, 8-
 * or 32-bit type that is not of what is kept apart: master weights,
 * gradients, reductions), or NULL; the word into word[] (named.c). */
const char *valid_precision_named(const cases_csv *c, size_t row, char *word, size_t len);
/* Every open cell above (and the recomputation, valid_recompute_named)
 * written from the row's text; SIM_ENOMEM, else SIM_OK (named.c, called
 * by valid_loose_numbers). */
int valid_fill_named(cases_csv *c);
/* What valid_fill_named wrote into row's cells, said (but the
 * recomputation, which valid_loose_numbers_assume says). */
void valid_named_assume(const cases_csv *c, size_t row, char *assumed, size_t alen);
/* Whether the phrase at p (n bytes) of the lower-cased text s is negated:
 * "no", "without", "disabled" before it, a false or an off after it
 * (numbers.c). */
bool valid_negated(const char *s, const char *p, size_t n);
/* A row of a run that ran out of memory, its measurement `col` (the peak,
 * the step) left without a number: memory_kind `oom` (or `out-of-memory`),
 * the measurement written so ("OOM"), or a note that says so ("OOM", "out
 * of memory"). podsim validate reads such a row by its verdict. */
bool valid_oom_marked(const cases_csv *c, size_t row, const char *col);
/* A training row whose measured_iter_s is open but whose source printed a
 * throughput (measured_metric, measured_value; metric.c): whether it gives
 * a step time, and that time from the row's loaded scenario (its global
 * batch, sequence length, GPUs and shape) and, for an HFU, hw_ratio, the
 * simulated step's hardware over model FLOPs (0: not simulated), said in
 * `assumed`. */
bool valid_metric_gives_time(const cases_csv *c, size_t row);
/* Why a row's measured_metric gives no step time where that is the reason
 * to name (a whole run's time whose note states no steps, samples or tokens
 * it covered); NULL otherwise (metric.c). */
const char *valid_metric_skip_why(const cases_csv *c, size_t row);
double valid_measured_from_metric(const cases_csv *c, size_t row, const plan_scenario *s,
                                  double hw_ratio, char *assumed, size_t alen);
/* The EC2 instance an EFA node of GPU type `gpu` with `nics` EFA is (its
 * aws-ofi-nccl tuner tables, [node] ec2_instance): p5, p5e, p5en, p6-b200,
 * or "none" (NCCL's own choice: p4d and p4de, whose platform entries carry
 * no tuner tables, and any other). */
const char *valid_efa_instance(const char *gpu, double nics);
/* An unfitted EFA cluster (micro.c): its nodes' EFA (nics of gbps, the
 * aws-ofi-nccl tuner of `instance`) and the per-step latency and message
 * cost (seconds) of the fitted cluster of its plugin platform, `like`
 * (topologies/ file: P6-B200's for p5en, p5's otherwise), uncongested.
 * Rows of an EFA instance no shipped cluster is (micro.c, runs.c) run on
 * one. valid_efa_unfitted: SIM_OK or the loader's error; _keys: its [node]
 * keys, or with `cluster` its [cluster] keys beside fabric = efa; _said:
 * the row's assumption (with the node file's NIC efficiency where > 0). */
typedef struct valid_efa_unfit {
	double nics, gbps, lat, msg;
	const char *instance, *like;
} valid_efa_unfit;
int valid_efa_unfitted(const valid_options *opt, const char *gpu, double nics, double gbps,
                       valid_efa_unfit *u);
void valid_efa_unfit_keys(sim_buf *b, const valid_efa_unfit *u, bool cluster);
/* A training row on an EFA instance no shipped EFA cluster is (A100 on p4d
 * or p4de): its unfitted cluster into *u, said; NULL, or why not (node.c). */
const char *valid_row_efa_other(const cases_csv *c, size_t row, const valid_options *opt,
                                const char *gpu, valid_efa_unfit *u, char *assumed, size_t alen);
void valid_efa_unfit_said(char *buf, size_t len, const char *gpu, const valid_efa_unfit *u,
                          double nic_eff);
double valid_eager_issue_s(const hw_gpu *gpu);

#endif
