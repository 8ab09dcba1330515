/* scenario.c - loading a scenario: the configuration tree, overrides, every
 * module's section, then the plan checks. The [scenario], [parallel] and
 * [train] key tables live here. */
#include "plan.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const sched_names[] = {"gpipe",      "1f1b",      "zb-h1", "zbv",
                                          "looped-bfs", "dualpipev", NULL};
static const char *const recompute_names[] = {"none", "selective", "full", NULL};
static const char *const rc_method_names[] = {"block", "spread", NULL};
_Static_assert(PLAN_RC_BLOCK == 0 && PLAN_RC_SPREAD == 1, "rc_method_names follows plan_rc_method");
static const char *const offload_names[] = {"none", "cpu", "nvme", NULL};
static const char *const p2p_names[] = {"auto", "sync", "async", NULL};
static const char *const dispatcher_names[] = {"fused", "alltoall", "gshard", NULL};
_Static_assert(WORK_MOE_FUSED == 0 && WORK_MOE_ALLTOALL == 1 && WORK_MOE_GSHARD == 2,
	       "dispatcher_names follows work_moe_dispatcher");
_Static_assert(sizeof(plan_p2p) == sizeof(int), "conf stores enums as int");
_Static_assert(sizeof(plan_offload) == sizeof(int), "conf stores enums as int");

#define PK(field) offsetof(plan_spec, field)
const conf_key plan_spec_keys[] = {
	{"tp", CONF_INT, SIM_UNIT_NONE, 1, 65536, "1", NULL, PK(tp), "tensor-parallel size"},
	{"pp", CONF_INT, SIM_UNIT_NONE, 1, 65536, "1", NULL, PK(pp), "pipeline-parallel stages"},
	{"dp", CONF_INT, SIM_UNIT_NONE, 1, 16777216, "1", NULL, PK(dp), "data-parallel replicas"},
	{"cp", CONF_INT, SIM_UNIT_NONE, 1, 65536, "1", NULL, PK(cp), "context-parallel size"},
	{"ep", CONF_INT, SIM_UNIT_NONE, 1, 65536, "1", NULL, PK(ep), "expert-parallel size"},
	{"moe_dispatcher", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "fused", dispatcher_names,
	 PK(moe_dispatcher),
	 "MoE token dispatcher with ep > 1: fused (the tokens' all-to-alls around one "
	 "permutation), alltoall (Megatron-Core's: also the counts' all-gather, the "
	 "probabilities' all-to-all, the sort by local expert); gshard, whatever ep: "
	 "DeepSpeed-MoE's layer (Megatron-DeepSpeed's experts: dense einsum dispatch and "
	 "combine over fixed-capacity slots, TP ranks' duplicate tokens dropped)"},
	{"moe_capacity_factor", CONF_REAL, SIM_UNIT_NONE, 0, 64, "1", NULL, PK(moe_capacity),
	 "moe_dispatcher = gshard: slots per expert over its even share of the tokens x top-k "
	 "(Megatron-DeepSpeed --moe-train-capacity-factor, 1.0); the experts compute every "
	 "slot, filled or not; 0 = no token dropped (--disable-moe-token-dropping): the busiest "
	 "expert's count, model.moe_imbalance, agreed by an all-reduce over the EP group"},
	{"moe_deepep_num_sms", CONF_INT, SIM_UNIT_NONE, 0, 65536, "20", NULL, PK(deepep_sms),
	 "moe_dispatcher = fused: the SMs DeepEP's dispatch and combine kernels hold while "
	 "they run, lost to the compute beside them (Megatron-Core --moe-deepep-num-sms; "
	 "even; 0: kernels that hold none)"},
	{"vpp", CONF_INT, SIM_UNIT_NONE, 1, 1024, "1", NULL, PK(vpp),
	 "model chunks per pipeline rank (interleaved 1F1B)"},
	{"vp_group", CONF_INT, SIM_UNIT_NONE, 0, 1048576, "0", NULL, PK(vp_group),
	 "vpp > 1: micro-batches per group of the interleaved schedule, each group run "
	 "through every chunk in turn (Megatron-Core "
	 "--microbatch-group-size-per-virtual-pipeline-stage; 0 = pp, or where the "
	 "micro-batches are no multiple of pp the smallest group the framework accepts)"},
	{"micro_batch", CONF_INT, SIM_UNIT_NONE, 1, 1048576, "1", NULL, PK(micro_batch),
	 "sequences per micro-batch"},
	{"global_batch", CONF_INT, SIM_UNIT_NONE, 1, 1073741824, NULL, NULL, PK(global_batch),
	 "sequences per optimizer step, all replicas"},
	{"schedule", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "1f1b", sched_names, PK(schedule),
	 "pipeline schedule (with vpp > 1: 1f1b interleaved 1F1B, zb-h1 torch pipelining's "
	 "interleaved zero bubble; zbv; looped-bfs, torch pipelining's breadth-first GPipe over "
	 "the chunks; dualpipev, its DualPipeV)"},
	{"recompute", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "none", recompute_names, PK(recompute),
	 "activation recomputation"},
	{"recompute_layers", CONF_INT, SIM_UNIT_NONE, 0, 1048576, "0", NULL, PK(recompute_layers),
	 "recompute = full: layers of each pipeline chunk that re-run their forward in the "
	 "backward, the rest keep their saved tensors (0 = all; Megatron-Core "
	 "--recompute-num-layers with --recompute-method block; fms-fsdp's "
	 "selective_checkpointing p = this / the chunk's layers)"},
	{"recompute_method", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "block", rc_method_names,
	 PK(recompute_method),
	 "which layers recompute_layers recomputes: block (each chunk's first ones, "
	 "Megatron-Core's) or spread (evenly spaced, fms-fsdp's)"},
	{"recompute_modules", CONF_STR, SIM_UNIT_NONE, 0, 0, "core_attn", NULL,
	 PK(recompute_modules),
	 "what recompute = selective re-runs: core_attn, mla_up_proj, mlp, moe_act (comma-separated)"},
	{"sequence_parallel", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
	 PK(sequence_parallel), "Megatron sequence parallelism in TP regions"},
	{"zero", CONF_INT, SIM_UNIT_NONE, 0, 3, "0", NULL, PK(zero),
	 "ZeRO stage (1 = distributed optimizer)"},
	{"bucket_size", CONF_QTY, SIM_UNIT_BYTES, 0, 1e15, "0 B", NULL, PK(bucket_bytes),
	 "gradient reduction bucket (0 = the framework's: [framework] grad_bucket)"},
	{"overlap_grad_reduce", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
	 PK(overlap_grad_reduce), "overlap DP gradient reduction with backward"},
	{"fp32_grads", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, PK(fp32_grads),
	 "accumulate, keep and reduce the data-parallel gradients in fp32 (unset: the "
	 "framework's rule by precision, [framework] grad_dtype)"},
	{"first_stage_layers", CONF_INT, SIM_UNIT_NONE, 0, 1048576, "0", NULL,
	 PK(first_stage_layers), "layers on the first virtual stage (0 = even split)"},
	{"last_stage_layers", CONF_INT, SIM_UNIT_NONE, 0, 1048576, "0", NULL,
	 PK(last_stage_layers), "layers on the last virtual stage (0 = even split)"},
	{"embedding_in_split", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
	 PK(embedding_in_split), "count the embedding as one layer when splitting stages"},
	{"loss_in_split", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, PK(loss_in_split),
	 "count the output layer and loss as one layer when splitting stages"},
	{"offload_optimizer", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "none", offload_names,
	 PK(offload_optimizer), "optimizer states and Adam on the CPU (ZeRO-Offload) or NVMe"},
	{"offload_params", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "none", offload_names,
	 PK(offload_params), "ZeRO-3 parameters kept on the CPU or NVMe (ZeRO-Infinity)"},
	{"order", CONF_STR, SIM_UNIT_NONE, 0, 0, "tp-cp-dp-pp", NULL, PK(order),
	 "rank placement, innermost first (tp-cp-dp-pp keeps TP inside a node)"},
	{"shard_size", CONF_INT, SIM_UNIT_NONE, 0, 16777216, "0", NULL, PK(shard_size),
	 "hybrid sharding: ZeRO/FSDP shard group size, replicated across (0 = all dp*cp)"},
	{"zero_hpz", CONF_INT, SIM_UNIT_NONE, 1, 16777216, "1", NULL, PK(zero_hpz),
	 "ZeRO++ hpZ (DeepSpeed's zero_hpz_partition_size): ZeRO-3 keeps a secondary 16-bit "
	 "shard of the parameters over this many consecutive data-parallel ranks (a node's "
	 "GPUs), and every gather after a parameter's first of the step runs over that group "
	 "(1 = off)"},
	{"zero_quantized_weights", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, PK(zero_qw),
	 "ZeRO++ qwZ (DeepSpeed's zero_quantized_weights): ZeRO-3 gathers parameters as int8 "
	 "with an fp32 scale per group of at most 8,000, quantised before and dequantised after "
	 "each gather"},
	{"zero_quantized_gradients", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, PK(zero_qg),
	 "ZeRO++ qgZ (DeepSpeed's zero_quantized_gradients): ZeRO-3 reduces each gradient "
	 "tensor by int4 all-to-alls, inside the node then across nodes, instead of the "
	 "bucket's reduce-scatter (data-parallel groups over more than one node)"},
	{"p2p", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "auto", p2p_names, PK(p2p),
	 "pipeline send/receive: sync (a rendezvous with the receiver that blocks the "
	 "sender's next compute: Megatron 1F1B, DeepSpeed), async (overlaps it: "
	 "Megatron-Core --overlap-p2p-communication), auto (async with vpp > 1 or zb-h1)"},
	{"p2p_scatter_gather", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
	 PK(p2p_scatter_gather),
	 "true = each TP rank sends 1/tp of the activation between stages and the "
	 "receiving TP group all-gathers it (Megatron-LM's and DeepSpeed's default without "
	 "sequence_parallel); false = every rank sends all of it, which fits the "
	 "validation data better for now"},
	{"tp_comm_overlap", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, PK(tp_comm_overlap),
	 "overlap each sequence-parallel all-gather / reduce-scatter with its GEMM, chunked "
	 "(Transformer Engine userbuffers, Megatron --tp-comm-overlap; needs "
	 "sequence_parallel)"},
	{"overlap_param_gather", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
	 PK(overlap_param_gather),
	 "zero = 1/2: all-gather the updated parameters per bucket under the next step's "
	 "forward, not after the optimizer (Megatron --overlap-param-gather)"},
	{"moe_a2a_overlap", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, PK(moe_a2a_overlap),
	 "MoE with ep > 1: run each steady 1F1B step's forward and backward layer by layer, "
	 "the all-to-alls of one beside the other's compute (Megatron-Core "
	 "--overlap-moe-expert-parallel-comm, combined 1F1B; one more warm-up forward)"},
	{"delay_wgrad_compute", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, PK(delay_wgrad),
	 "with moe_a2a_overlap: the backward's weight-gradient GEMMs run after the "
	 "all-to-all they would delay, filling its gap (Megatron-Core --delay-wgrad-compute)"},
};
const size_t plan_spec_nkeys = sizeof plan_spec_keys / sizeof plan_spec_keys[0];

const conf_key plan_scenario_keys[] = {
	{"name", CONF_STR, SIM_UNIT_NONE, 0, 0, NULL, NULL, offsetof(plan_head, name),
	 "scenario name"},
	{"description", CONF_STR, SIM_UNIT_NONE, 0, 0, "", NULL,
	 offsetof(plan_head, description), "one line shown in reports"},
	{"seed", CONF_INT, SIM_UNIT_NONE, 0, 2147483647, "1", NULL, offsetof(plan_head, seed),
	 "random seed (jitter, stragglers; serving: arrivals and lengths)"},
};

/* Training precisions, in the order of their hw_dtype. */
static const char *const precision_names[] = {"fp32", "tf32", "fp16", "bf16", "fp8", NULL};
static const hw_dtype precision_dtype[] = {HW_FP32, HW_TF32, HW_FP16, HW_BF16, HW_FP8};

static const char *const attention_names[] = {"flash", "unfused", NULL};
static const char *const mode_names[] = {"training", "inference", NULL};

static const char *const policy_names[] = {"mixed", "amp", "pure", NULL};
/* In plan_optimizer's order; the names past adafactor are aliases, mapped
 * back by optimizer_alias. `sgd` is SGD with momentum, as the course material
 * and most training recipes use it (8 B per parameter with its fp32 master);
 * `sgd-plain` is torch.optim.SGD's momentum-free default. */
static const char *const optimizer_names[] = {"adam",      "adam-8bit", "paged-adam", "paged-adam-8bit",
					      "sgd-plain", "sgd",       "adafactor",  "sgd-momentum",
					      "adam8bit",  NULL};
static const int optimizer_alias[] = {PLAN_ADAM,         PLAN_ADAM_8BIT,   PLAN_ADAM_PAGED,
				      PLAN_ADAM_PAGED_8BIT, PLAN_SGD,      PLAN_SGD_MOMENTUM,
				      PLAN_ADAFACTOR,    PLAN_SGD_MOMENTUM, PLAN_ADAM_8BIT};
static const char *const gradcomp_names[] = {"none", "fp8", "1bit", NULL};
static const char *const base_names[] = {"auto", "16-bit", "fp32", "nf4", "nf4-dq", "int4",
					 "int8", NULL};
static const char *const fp8_recipe_names[] = {"delayed", "tensorwise", "mxfp8", "blockwise", NULL};

typedef struct scen_train {
	int precision;
	int attention;
	int mode;
	plan_train t;
} scen_train;

#define TK(field) offsetof(scen_train, t.field)

const conf_key plan_train_keys[] = {
	{"precision", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "bf16", precision_names,
	 offsetof(scen_train, precision), "matmul and activation precision"},
	{"attention", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "flash", attention_names,
	 offsetof(scen_train, attention),
	 "flash (fused, no s x s scores in memory) or unfused (QK^T, softmax, x V)"},
	{"mode", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "training", mode_names, offsetof(scen_train, mode),
	 "training step, or inference (forward passes of the global batch, prefill)"},
	{"policy", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "mixed", policy_names, TK(policy),
	 "precision policy: mixed (16-bit weights, fp32 master: 2 + 2|4 + 12 B/param), amp (fp32 "
	 "parameters under autocast: 4 + 4 + 8), pure (16-bit weights, gradients, states: 2 + 2 + 4)"},
	{"optimizer", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "adam", optimizer_names, TK(optimizer),
	 "adam, adam-8bit or adam8bit (uint8 states), paged-adam and paged-adam-8bit (states in "
	 "unified memory), sgd or sgd-momentum (SGD with momentum), sgd-plain (no momentum), "
	 "adafactor (factored, no first moment); offload_optimizer moves adam or sgd to the host"},
	{"grad_compression", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "none", gradcomp_names,
	 TK(grad_compression),
	 "data-parallel gradient traffic: none (the gradients' width), fp8 (1 B per value), 1bit "
	 "(1-bit Adam after warm-up: 1 bit per value, error feedback in memory)"},
	{"optimizer_in_backward", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
	 TK(optimizer_in_backward),
	 "step each parameter in its backward and free its gradient (torchtune optimizer_in_bwd)"},
	{"clip_grad", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, TK(clip_grad),
	 "the optimizer step computes the gradients' global norm (clipping; every framework's "
	 "default recipe): one more read of the gradients"},
	{"lora_rank", CONF_INT, SIM_UNIT_NONE, 0, 65536, "0", NULL, TK(lora_rank),
	 "LoRA rank r: only the adapters (r x (in + out) per target) train; 0 = full training"},
	{"lora_targets", CONF_STR, SIM_UNIT_NONE, 0, 0, "q,k,v,o,gate,up,down", NULL,
	 TK(lora_targets),
	 "linear layers that get adapters: q, k, v, o, gate, up, down (or attention, mlp, all)"},
	{"lora_dropout", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "true", NULL, TK(lora_dropout),
	 "the adapters see a dropout of their input (a copy and a mask kept per target)"},
	{"base_weights", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "auto", base_names, TK(base_weights),
	 "frozen base weights under LoRA: auto (as the policy), 16-bit, fp32, nf4 (0.5625 B), "
	 "nf4-dq (0.516 B), int4 (GPTQ, 0.52 B), int8"},
	{"train_embeddings", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, TK(train_embeddings),
	 "with LoRA also train the embedding and output layer in full"},
	{"frozen_layers", CONF_INT, SIM_UNIT_NONE, 0, 1000000, "0", NULL, TK(frozen_layers),
	 "freeze the first N transformer layers and the input embedding: no gradients, no "
	 "optimizer state, no backward through them"},
	{"compile", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, TK(compile),
	 "torch.compile: eager code keeps the compiled set of saved tensors"},
	{"chunked_loss", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, TK(chunked_loss),
	 "cross-entropy over logit chunks, upcast inside the compiled loss (torchtune)"},
	{"activation_offload", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL,
	 TK(activation_offload), "kept activations are copied to the host until their backward"},
	{"autocast", CONF_BOOL, SIM_UNIT_NONE, 0, 0, "false", NULL, TK(autocast),
	 "16-bit weights under torch autocast (HF Trainer --bf16): the loss in fp32; implied by "
	 "policy = amp"},
	{"fp8_recipe", CONF_ENUM, SIM_UNIT_NONE, 0, 0, "delayed", fp8_recipe_names, TK(fp8_recipe),
	 "precision fp8's scaling (Megatron-Core --fp8-recipe): delayed keeps a quantized copy "
	 "of the attention output for the output projection; tensorwise, mxfp8, blockwise do not"},
};

const size_t plan_scenario_nkeys = sizeof plan_scenario_keys / sizeof plan_scenario_keys[0];
const size_t plan_train_nkeys = sizeof plan_train_keys / sizeof plan_train_keys[0];

int plan_lora_targets(const char *text, unsigned *mask)
{
	static const conf_flag names[] = {
		{"q", WORK_LORA_Q},
		{"k", WORK_LORA_K},
		{"v", WORK_LORA_V},
		{"o", WORK_LORA_O},
		{"gate", WORK_LORA_GATE},
		{"up", WORK_LORA_UP},
		{"down", WORK_LORA_DOWN},
		{"attention", WORK_LORA_Q | WORK_LORA_K | WORK_LORA_V | WORK_LORA_O},
		{"mlp", WORK_LORA_GATE | WORK_LORA_UP | WORK_LORA_DOWN},
		{"all", 0x7f},
	};
	if (conf_flags_parse(text, names, sizeof names / sizeof names[0], mask, NULL, 0) != SIM_OK)
		return SIM_ECONF;
	return *mask ? SIM_OK : SIM_ECONF;
}

/* What a GPU type runs a step at: the framework's host cost per operation
 * is charged beside every kernel (hw's kernel times, plan/chain.c's
 * host-side dispatch), and a step's kernels run back to back at the clock
 * the GPU sustains (hw.h tensor_sustain: hw slows every SM-bound kernel by
 * it). The node's GPU and other_gpu alike. */
static void step_gpu(const plan_scenario *s, hw_gpu *g)
{
	g->framework_s = s->fw.op_overhead_s;
	hw_step_clock(g, s->dtype == HW_FP8);
}

/* [cluster] other_nodes: node numbers or ranges A-B, separated by commas or
 * blanks, each node in [0, nodes) once, into s->other_node / s->nother. */
static int other_list(plan_scenario *s, sim_diag *diag)
{
	const char *text = s->cluster.other_nodes;
	conf_loc loc = conf_key_loc(s->doc, "cluster", "other_nodes");
	int nodes = s->cluster.nodes;
	s->other_node = calloc((size_t)nodes, sizeof *s->other_node);
	if (!s->other_node)
		return SIM_ENOMEM;
	s->other_len = nodes;
	for (const char *p = text; *p;) {
		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		if (!*p)
			break;
		char *end;
		long a = strtol(p, &end, 10), b = a;
		bool ok = end != p && *p != '-' && *p != '+';
		if (ok && *end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			ok = end != p && *p != '-' && *p != '+';
		}
		ok = ok && (*end == '\0' || *end == ' ' || *end == ',' || *end == '\t');
		if (!ok || a < 0 || b < a || b >= nodes) {
			sim_diag_error(diag, loc.path, loc.line,
				       "[cluster] other_nodes = '%s': want node numbers from 0 to %d (or ranges "
				       "A-B, A <= B), separated by commas",
				       text, nodes - 1);
			return SIM_ECONF;
		}
		for (long n = a; n <= b; n++) {
			if (s->other_node[n]) {
				sim_diag_error(diag, loc.path, loc.line,
					       "[cluster] other_nodes = '%s': node %ld is listed twice", text, n);
				return SIM_ECONF;
			}
			s->other_node[n] = true;
			s->nother++;
		}
		p = end;
	}
	return SIM_OK;
}

/* The keys of d's [gpu] section as the text of an [other_gpu] section
 * ("\n[other_gpu]\nname = ...\n..."), and those of its [node] (a node
 * file's) as an [other_node] section, for plan_scenario_text; NULL when
 * out of memory. */
static char *other_section_text(const conf_doc *d)
{
	sim_buf b;
	sim_buf_init(&b);
	static const char *const from[] = {"gpu", "node"}, *const to[] = {"other_gpu", "other_node"};
	for (int j = 0; j < 2; j++) {
		if (!conf_has_section(d, from[j]))
			continue;
		sim_buf_printf(&b, "\n[%s]\n", to[j]);
		for (size_t i = 0; i < conf_section_count(d); i++) {
			if (strcmp(conf_section_name(d, i), from[j]))
				continue;
			for (size_t k = 0; k < conf_key_count(d, i); k++) {
				const char *key = conf_key_name(d, i, k);
				sim_buf_printf(&b, "%s = %s\n", key, conf_get(d, from[j], key, NULL));
			}
		}
	}
	if (b.oom) {
		sim_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* [cluster] other_gpu: a [gpu] file, or a node file (its [node] and the
 * [gpu] it includes, as topologies/nodes/ holds), its path relative to the
 * file that sets the key (as include; from the working directory under
 * --set), read alone with hw's [gpu] table and net's [node] table. Its keys
 * are kept in s->other_text, the [other_gpu] (and [other_node]) sections
 * plan_scenario_text adds: a stored run reads back without the file
 * (other_gpu below). */
static int other_file(plan_scenario *s, sim_diag *diag)
{
	const char *v = s->cluster.other_gpu;
	conf_loc loc = conf_key_loc(s->doc, "cluster", "other_gpu");
	const char *slash = loc.line > 0 && v[0] != '/' ? strrchr(loc.path, '/') : NULL;
	int dir = slash ? (int)(slash - loc.path) + 1 : 0;
	char path[4096];
	if (snprintf(path, sizeof path, "%.*s%s", dir, loc.path, v) >= (int)sizeof path) {
		sim_diag_error(diag, loc.path, loc.line, "[cluster] other_gpu = '%s': path too long",
			       v);
		return SIM_ECONF;
	}
	struct stat st;
	int found = stat(path, &st) == 0 ? 0 : errno;
	if (found || !S_ISREG(st.st_mode)) {
		sim_diag_error(diag, loc.path, loc.line,
			       "[cluster] other_gpu = '%s': cannot open '%s': %s", v, path,
			       found ? strerror(found) : "not a regular file");
		return SIM_ECONF;
	}
	conf_doc *d;
	int rc = conf_load(path, diag, &d);
	if (rc != SIM_OK)
		return rc;
	static const char *const gpu_node[] = {"gpu", "node", NULL};
	if (conf_check_sections(d, gpu_node, diag) > 0) {
		sim_diag_note(diag, loc.path, loc.line,
			      "other_gpu names a GPU type's file ([gpu] only), as topologies/gpus/ "
			      "holds, or a node file ([node] and its [gpu]), as topologies/nodes/ "
			      "holds");
		rc = SIM_ECONF;
	} else if (hw_gpu_from_conf(d, &s->other_gpu, diag) != SIM_OK) {
		rc = SIM_ECONF;
	} else if (conf_has_section(d, "node") &&
		   net_node_from_section(d, "node", &s->other_net, diag) != SIM_OK) {
		rc = SIM_ECONF;
	} else if (!(s->other_text = other_section_text(d))) {
		rc = SIM_ENOMEM;
	}
	s->other_links = rc == SIM_OK && conf_has_section(d, "node");
	conf_free(d);
	return rc;
}

/* The other nodes' links (s->other_net): a node file's [node], or a stored
 * run's [other_node] (other_links), else the main node's. Their GPUs per
 * node must be the main node's (ranks fill the nodes in order, plan.h
 * groups), and a cluster of several nodes needs their NICs. */
static int other_links(plan_scenario *s, conf_loc loc, sim_diag *diag)
{
	const net_node *m = &s->cluster.node, *o = &s->other_net;
	if (!s->other_links) {
		s->other_net = *m;
		return SIM_OK;
	}
	if (o->gpus != m->gpus) {
		sim_diag_error(diag, loc.path, loc.line,
			       "other_gpu's node '%s' has %d GPUs, the cluster's node '%s' %d: the "
			       "nodes of a mixed cluster hold as many GPUs each",
			       o->name, o->gpus, m->name, m->gpus);
		return SIM_ECONF;
	}
	if (s->cluster.nodes > 1 && (o->nics < 1 || o->nic_Bps <= 0)) {
		sim_diag_error(diag, loc.path, loc.line,
			       "other_gpu's node '%s': a cluster of more than one node needs nics >= "
			       "1 and nic_bw > 0",
			       o->name);
		return SIM_ECONF;
	}
	return SIM_OK;
}

/* The other GPU type: the scenario's [other_gpu] section when it has one
 * (the keys of a [gpu] file written out, as plan_scenario_text stores them;
 * [cluster] other_gpu, if set, then only says where they came from and is
 * not opened), else the file [cluster] other_gpu names; on the nodes
 * [cluster] other_nodes lists. Both or neither (every node alike: nothing
 * set, the fast path). It must run the training precision. */
static int other_gpu(plan_scenario *s, sim_diag *diag)
{
	const net_cluster *c = &s->cluster;
	bool inline_gpu = conf_has_section(s->doc, "other_gpu");
	bool named = c->other_gpu[0] || inline_gpu;
	if (conf_has_section(s->doc, "other_node") && !inline_gpu) {
		conf_loc l = conf_section_loc(s->doc, "other_node");
		sim_diag_error(diag, l.path, l.line,
			       "[other_node] is the other nodes' links beside [other_gpu], their GPU: "
			       "name a node file with [cluster] other_gpu instead");
		return SIM_ECONF;
	}
	if (!named && !c->other_nodes[0])
		return SIM_OK;
	/* where the other GPU is named, for the messages below */
	conf_loc loc = inline_gpu ? conf_section_loc(s->doc, "other_gpu")
				  : conf_key_loc(s->doc, "cluster", "other_gpu");
	if (!c->other_nodes[0]) {
		sim_diag_error(diag, loc.path, loc.line,
			       "%s needs other_nodes: a GPU type file and the nodes that hold it",
			       inline_gpu ? "[other_gpu]" : "[cluster] other_gpu");
		return SIM_ECONF;
	}
	if (!named) {
		loc = conf_key_loc(s->doc, "cluster", "other_nodes");
		sim_diag_error(diag, loc.path, loc.line,
			       "[cluster] other_nodes needs other_gpu: a GPU type file and the nodes "
			       "that hold it");
		return SIM_ECONF;
	}
	int rc = inline_gpu ? hw_gpu_from_section(s->doc, "other_gpu", &s->other_gpu, diag)
			    : other_file(s, diag);
	if (inline_gpu && conf_has_section(s->doc, "other_node")) {
		if (net_node_from_section(s->doc, "other_node", &s->other_net, diag) != SIM_OK)
			rc = SIM_ECONF;
		s->other_links = true;
	}
	if (rc == SIM_OK)
		rc = other_links(s, loc, diag);
	/* the other nodes' GPUs for NCCL's tuner (net tune.c); a group over
	 * both types is tuned for the lower (net_node_slowest, NCCL's
	 * minCompCap): exec/straggle.c times it on the slowest links */
	if (rc == SIM_OK)
		s->other_net.cc = s->other_gpu.compute_capability;
	if (rc != SIM_OK && inline_gpu && c->other_gpu[0])
		sim_diag_note(diag, loc.path, loc.line,
			      "[other_gpu] is the whole GPU type, read in place of the file [cluster] "
			      "other_gpu names: set its keys in that file");
	int rl = other_list(s, diag);
	if (rc != SIM_OK)
		return rc;
	step_gpu(s, &s->other_gpu);
	if (hw_peak(&s->other_gpu, s->dtype) <= 0) {
		char what[CONF_STR_MAX + 32] = "[other_gpu]";
		if (!inline_gpu)
			snprintf(what, sizeof what, "[cluster] other_gpu = '%s'", c->other_gpu);
		sim_diag_error(diag, loc.path, loc.line,
			       "%s: GPU '%s' has no %s tensor path ([train] precision)", what,
			       s->other_gpu.name, hw_dtype_name(s->dtype));
		return SIM_ECONF;
	}
	return rl;
}

/* campaign, storage and reliability are read by sim/campaign (podsim train). */
static const char *const known_sections[] = {"scenario", "model",    "gpu",      "node",
					     "cluster",  "parallel", "train",    "framework",
					     "campaign", "storage",  "reliability", "other_gpu",
					     "other_node", NULL};

/* Read every section; keep going after errors so several are reported. */
static int read_sections(plan_scenario *s, sim_diag *diag)
{
	plan_head head;
	scen_train train;
	static const conf_kind other[] = {{"sweep", "a sweep file", "sweep"},
	                                  {"serve", "a serving scenario", "serve"},
	                                  {NULL, NULL, NULL}};
	if (conf_other_kind(s->doc, other, diag))
		return SIM_ECONF;
	int rc = SIM_OK;
	if (conf_check_sections(s->doc, known_sections, diag) > 0)
		rc = SIM_ECONF;
	if (conf_read(s->doc, "scenario", plan_scenario_keys, plan_scenario_nkeys,
		      &head, false, diag) != SIM_OK)
		rc = SIM_ECONF;
	if (conf_read(s->doc, "train", plan_train_keys, plan_train_nkeys, &train,
		      true, diag) != SIM_OK)
		rc = SIM_ECONF;
	if (work_model_from_conf(s->doc, &s->model, diag) != SIM_OK)
		rc = SIM_ECONF;
	if (hw_gpu_from_conf(s->doc, &s->gpu, diag) != SIM_OK)
		rc = SIM_ECONF;
	if (plan_framework_from_conf(s->doc, &s->fw, diag) != SIM_OK)
		rc = SIM_ECONF;
	if (net_cluster_from_conf(s->doc, &s->cluster, diag) != SIM_OK)
		rc = SIM_ECONF;
	if (conf_read(s->doc, "parallel", plan_spec_keys, plan_spec_nkeys, &s->plan, false,
		      diag) != SIM_OK)
		rc = SIM_ECONF;
	if (rc != SIM_OK)
		return rc;
	memcpy(s->name, head.name, sizeof s->name);
	memcpy(s->description, head.description, sizeof s->description);
	s->seed = (uint64_t)head.seed;
	s->dtype = precision_dtype[train.precision];
	s->flash = train.attention == 0;
	s->inference = train.mode == 1;
	s->train = train.t;
	s->train.optimizer = optimizer_alias[train.t.optimizer];
	if (plan_lora_targets(s->train.lora_targets, &s->train.lora_mask) != SIM_OK) {
		conf_loc loc = conf_key_loc(s->doc, "train", "lora_targets");
		sim_diag_error(diag, loc.path, loc.line,
			       "lora_targets = '%s': expected q, k, v, o, gate, up, down, attention, "
			       "mlp or all, comma-separated",
			       s->train.lora_targets);
		return SIM_ECONF;
	}
	step_gpu(s, &s->gpu);
	s->plan.uneven = s->fw.uneven;
	s->plan.vp_groups = s->fw.vp_group;
	s->plan.vp_rule = s->fw.vp_rule;
	s->plan.mtp_units = s->model.mtp_layers;
	s->vocab_model = s->model.vocab;
	plan_derive(s, conf_get(s->doc, "parallel", "fp32_grads", NULL) != NULL,
	            conf_get(s->doc, "parallel", "sequence_parallel", NULL) != NULL,
	            conf_get(s->doc, "parallel", "zero", NULL) != NULL);
	return other_gpu(s, diag);
}

void plan_other_view(const plan_scenario *s, plan_scenario *o)
{
	*o = *s;
	o->gpu = s->other_gpu;
	o->cluster.node = s->other_links ? s->other_net : s->cluster.node;
	o->cluster.node.cc = s->other_net.cc; /* NCCL's tuner on the other GPUs */
}

void plan_derive(plan_scenario *s, bool fp32_given, bool sp_given, bool zero_given)
{
	/* [parallel] zero, where nothing gives it, is the stage the framework
	 * runs by default ([framework] zero_default): FSDP's sharding_strategy
	 * "or ShardingStrategy.FULL_SHARD" (torch 1.13.1
	 * distributed/fsdp/fully_sharded_data_parallel.py:1053, Debian
	 * python3-torch 1.13.1+dfsg-4), which it clamps to NO_SHARD "for world
	 * size of 1" (:1049-1052): one data-parallel rank keeps zero 0. Capped
	 * by the stages the framework runs, with a pipeline by runs_zero_with_pp
	 * (plan_check would refuse the rest). */
	if (!zero_given) {
		s->plan.zero = plan_zero_default(&s->fw, s->plan.pp,
		                                 (int64_t)s->plan.dp * s->plan.cp);
		s->zero_from_fw = s->fw.zero_default > 0;
	}
	/* [parallel] sequence_parallel, where nothing gives it, is what the
	 * framework runs at tp > 1: NeMo's recipes and torchtitan's flag turn
	 * it on ([framework] sequence_parallel_default), Megatron-LM's
	 * --sequence-parallel is off unless given */
	if (!sp_given) {
		s->sp_from_fw = s->fw.sp_default && s->fw.sp && s->plan.tp > 1;
		s->plan.sequence_parallel = s->sp_from_fw;
	}
	/* [parallel] fp32_grads, where nothing gives it, is the framework's
	 * rule for this precision and stage ([framework] grad_dtype) */
	if (!fp32_given)
		s->plan.fp32_grads = plan_grad_fp32(s->fw.grad_dtype, s->dtype, s->plan.zero);
	plan_pad_vocab(s);
	char bad[64]; /* a bad list is plan_check's error */
	if (work_recompute_parse(s->plan.recompute_modules, &s->plan.recompute_mask, bad,
				 sizeof bad) != SIM_OK)
		s->plan.recompute_mask = 0;
}

int plan_padded_vocab(int vocab, int multiple, int tp)
{
	if (multiple <= 0 || vocab <= 0)
		return vocab;
	int64_t m = (int64_t)multiple * (tp > 0 ? tp : 1);
	int64_t v = (vocab + m - 1) / m * m;
	return v > INT32_MAX ? vocab : (int)v;
}

bool plan_vocab_assumption(const plan_scenario *s, char *buf, size_t len)
{
	if (s->vocab_model <= 0 || s->model.vocab == s->vocab_model)
		return false;
	snprintf(buf, len, "vocabulary padded to %d (framework %s: a multiple of %d x tp %d)",
		 s->model.vocab, s->fw.name, s->fw.vocab_multiple, s->plan.tp);
	return true;
}

bool plan_vp_group_assumption(const plan_scenario *s, char *buf, size_t len)
{
	const plan_spec *p = &s->plan;
	int n = plan_vp_group(p);
	if (p->vpp <= 1 || p->vp_group > 0 || n == p->pp)
		return false;
	if (p->vp_rule == PLAN_VP_TORCH)
		snprintf(buf, len,
			 "vp_group %d (%d micro-batches are no multiple of pp = %d; framework %s "
			 "runs them in torch pipelining's max(1, m // pp) rounds of equal size)",
			 n, plan_microbatches(p), p->pp, s->fw.name);
	else
		snprintf(buf, len,
			 "vp_group %d (not published: %d micro-batches are no multiple of pp = %d; "
			 "the smallest micro-batch group framework %s accepts)",
			 n, plan_microbatches(p), p->pp, s->fw.name);
	return true;
}

bool plan_sp_assumption(const plan_scenario *s, char *buf, size_t len)
{
	if (!s->sp_from_fw)
		return false;
	snprintf(buf, len,
	         "sequence_parallel true (not given: framework %s runs it at tp > 1 by default, "
	         "sequence_parallel_default)",
	         s->fw.name);
	return true;
}

int plan_zero_default(const plan_framework *fw, int pp, int64_t dp_cp)
{
	int cap = pp > 1 ? fw->zero_max_pp : fw->zero_max;
	int z = fw->zero_default < cap ? fw->zero_default : cap;
	return dp_cp <= 1 || z < 0 ? 0 : z;
}

int plan_zero_default_text(const plan_framework *fw, int pp, int64_t dp_cp, char *buf,
                           size_t len)
{
	int z = plan_zero_default(fw, pp, dp_cp);
	const char *why = z == fw->zero_default ? ""
	                  : dp_cp <= 1 ? ", but one data-parallel rank shards nothing"
	                  : pp > 1     ? ", at most runs_zero_with_pp with a pipeline"
	                               : ", at most runs_zero";
	snprintf(buf, len, "framework %s's default, zero_default %d%s", fw->name, fw->zero_default,
	         why);
	return z;
}

bool plan_zero_assumption(const plan_scenario *s, char *buf, size_t len)
{
	if (!s->zero_from_fw)
		return false;
	char t[160];
	plan_zero_default_text(&s->fw, s->plan.pp, (int64_t)s->plan.dp * s->plan.cp, t, sizeof t);
	snprintf(buf, len, "zero %d (not given: %s)", s->plan.zero, t);
	return true;
}

work_model plan_flops_model(const plan_scenario *s)
{
	work_model m = s->model;
	if (s->vocab_model > 0)
		m.vocab = s->vocab_model;
	return m;
}

void plan_pad_vocab(plan_scenario *s)
{
	s->model.vocab = plan_padded_vocab(s->vocab_model, s->fw.vocab_multiple, s->plan.tp);
	/* the block costs of nanotron's balancing (PLAN_UNEVEN_COST), as its
	 * Llama computes them (models/llama.py:913-925 at 0e0a27ea, on the
	 * padded vocabulary: trainer.py pads it first): a decoder layer 4 a d h
	 * + 3 f h (its attention and MLP weights, K and V counted as Q whatever
	 * the K/V heads), the lm_head V h */
	int hd = s->model.head_dim > 0 ? s->model.head_dim
		 : s->model.heads > 0 ? s->model.hidden / s->model.heads : 0;
	double h = s->model.hidden;
	s->plan.cost_layer = 4.0 * s->model.heads * hd * h + 3.0 * (double)s->model.ffn * h;
	s->plan.cost_head = (double)s->model.vocab * h;
}

/* Read and (with `check`) check a scenario whose document s->doc is loaded
 * (rc = the load's result); on failure free it. */
static int finish_as(plan_scenario *s, int rc, sim_diag *diag, plan_scenario **out, bool check)
{
	if (rc == SIM_OK)
		rc = read_sections(s, diag);
	if (rc == SIM_OK && !check) {
		*out = s;
		return SIM_OK;
	}
	if (rc == SIM_OK)
		rc = plan_check(s, diag);
	if (rc == SIM_OK) {
		s->vlayers = malloc((size_t)s->plan.pp * (size_t)s->plan.vpp * sizeof *s->vlayers);
		rc = !s->vlayers ? SIM_ENOMEM
		     : plan_layout(&s->plan, s->model.layers, s->vlayers) ? SIM_ECONF
									   : SIM_OK;
		if (rc == SIM_OK)
			rc = plan_check_layout(s, diag);
	}
	if (rc != SIM_OK) {
		plan_scenario_free(s);
		return rc;
	}
	*out = s;
	return SIM_OK;
}

static int finish(plan_scenario *s, int rc, sim_diag *diag, plan_scenario **out)
{
	return finish_as(s, rc, diag, out, true);
}

static int load_file(const char *path, const char *const *overrides, size_t noverrides,
		     sim_diag *diag, plan_scenario **out, bool check)
{
	*out = NULL;
	plan_scenario *s = calloc(1, sizeof *s);
	if (!s)
		return SIM_ENOMEM;
	int rc = conf_load_set(path, overrides, noverrides, diag, &s->doc);
	return finish_as(s, rc, diag, out, check);
}

int plan_scenario_load(const char *path, const char *const *overrides, size_t noverrides,
		       sim_diag *diag, plan_scenario **out)
{
	return load_file(path, overrides, noverrides, diag, out, true);
}

int plan_scenario_load_unchecked(const char *path, const char *const *overrides,
				 size_t noverrides, sim_diag *diag, plan_scenario **out)
{
	return load_file(path, overrides, noverrides, diag, out, false);
}

int plan_scenario_load_string(const char *text, const char *name, const char *base_dir,
			      sim_diag *diag, plan_scenario **out)
{
	*out = NULL;
	plan_scenario *s = calloc(1, sizeof *s);
	if (!s)
		return SIM_ENOMEM;
	int rc = conf_load_string(text, strlen(text), name, base_dir, diag, &s->doc);
	return finish(s, rc, diag, out);
}

/* A text that does not load as it is, is loaded again without other_gpu
 * only when it names other_gpu's file and has no [other_gpu] section; diag
 * then also holds the first attempt's errors (the callers drop them). */
int plan_scenario_load_stored(const char *text, sim_diag *diag, plan_scenario **out, bool *alike)
{
	*alike = false;
	int rc = plan_scenario_load_string(text, "stored run", ".", diag, out);
	if (rc != SIM_ECONF)
		return rc;
	/* stored before its [other_gpu] was kept: the path is relative to a
	 * scenario file that is not known here */
	plan_scenario *s = calloc(1, sizeof *s);
	if (!s)
		return SIM_ENOMEM;
	sim_diag *quiet = sim_diag_new();
	int lr = quiet ? conf_load_string(text, strlen(text), "stored run", ".", quiet, &s->doc)
		       : SIM_ENOMEM;
	const char *v = lr == SIM_OK ? conf_get(s->doc, "cluster", "other_gpu", NULL) : NULL;
	if (v && *v && !conf_has_section(s->doc, "other_gpu") &&
	    conf_override(s->doc, "cluster.other_gpu=", quiet) == SIM_OK &&
	    conf_override(s->doc, "cluster.other_nodes=", quiet) == SIM_OK) {
		sim_diag_free(quiet);
		*alike = true;
		return finish(s, SIM_OK, diag, out);
	}
	sim_diag_free(quiet);
	plan_scenario_free(s);
	return rc;
}

void plan_scenario_free(plan_scenario *s)
{
	if (!s)
		return;
	conf_free(s->doc);
	free(s->vlayers);
	free(s->other_node);
	free(s->other_text);
	free(s);
}

char *plan_scenario_text(const plan_scenario *s)
{
	char *text = conf_resolved_text(s->doc);
	if (!text || !s->other_text)
		return text;
	size_t n = strlen(text), m = strlen(s->other_text);
	char *all = realloc(text, n + m + 1);
	if (!all) {
		free(text);
		return NULL;
	}
	memcpy(all + n, s->other_text, m + 1);
	return all;
}
