/* shape.c - the documented defaults of a case row's open model shape.
 *
 * A training or memory row that leaves an architecture column open, with no
 * model file of its name to take it from, gets the default a reader of the
 * source would assume, said on the row: heads 128 wide (64 where the width
 * is no multiple of 128), multi-head attention, the GPT layer's ffn of
 * 4 x hidden, the vocabulary and context of its family (GPT-2's and GPT-3's
 * for GELU layers, Llama 2's for SwiGLU ones, Llama 3's by its name); and
 * the layer's kind, SwiGLU or GELU, from its ffn, its name and its
 * framework (runs.c and memrows.c write them into the row's scenario).
 */
#include "valid_int.h"

#include <ctype.h>
#include <string.h>

/* valid_open_heads' count and width; 0 where none divides. */
static long open_heads(long hidden, long kv, long *width)
{
	static const long widths[] = {128, 64};
	for (size_t i = 0; i < 2; i++)
		if (hidden > 0 && hidden % widths[i] == 0 && (kv <= 0 || (hidden / widths[i]) % kv == 0)) {
			*width = widths[i];
			return hidden / widths[i];
		}
	/* K/V heads wider than either allows (DeepSeek-V3's 128 of 7,168):
	 * as many query heads as they */
	if (kv > 0 && hidden > 0 && hidden % kv == 0) {
		*width = hidden / kv;
		return kv;
	}
	return 0;
}

void valid_open_heads(sim_buf *b, long hidden, long kv, char *assumed, size_t alen)
{
	long width, na = open_heads(hidden, kv, &width);
	if (na <= 0)
		return;
	sim_buf_printf(b, "heads = %ld\n", na);
	valid_assume(assumed, alen, "heads %ld (not published: heads %ld wide)", na, width);
}

void valid_open_shape_said(bool kv_open, bool ffn_open, char *assumed, size_t alen)
{
	if (kv_open)
		valid_assume(assumed, alen, "kv_heads = heads (not published: multi-head attention)");
	if (ffn_open)
		valid_assume(assumed, alen, "ffn 4 x hidden (not published: the GPT layer's)");
}

long valid_open_seq_len(const char *model, bool swiglu, const char **why)
{
	static const struct {
		const char *name;
		long seq;
		const char *why;
	} named[] = {
	        {"llama 3", 8192, "Llama 3's context"}, {"llama-3", 8192, "Llama 3's context"},
	        {"llama3", 8192, "Llama 3's context"},  {"llama 2", 4096, "Llama 2's context"},
	        {"llama-2", 4096, "Llama 2's context"}, {"llama2", 4096, "Llama 2's context"},
	        {"codellama", 4096, "Llama 2's context"},
	};
	char low[256];
	valid_lower(model ? model : "", low, sizeof low);
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
		size_t n = strlen(named[i].name);
		/* the version as a number of its own: "CodeLlama-34B" is no Llama 3 */
		for (const char *p = strstr(low, named[i].name); p; p = strstr(p + 1, named[i].name))
			if (!isdigit((unsigned char)p[n])) {
				*why = named[i].why;
				return named[i].seq;
			}
	}
	*why = swiglu ? "Llama 2's context, for SwiGLU layers" : "GPT-3's context";
	return swiglu ? 4096 : 2048;
}

void valid_open_vocab(sim_buf *b, bool swiglu, char *assumed, size_t alen)
{
	sim_buf_printf(b, "vocab = %d\n", swiglu ? 32000 : 50257);
	valid_assume(assumed, alen,
	             swiglu ? "vocab 32000 (not published: Llama 2's, for SwiGLU layers)"
	                    : "vocab 50257 (not published: GPT-2's BPE, as Megatron-LM's "
	                      "GPT examples)");
}

bool valid_swiglu(const char *model, const char *profile, long hidden, long ffn,
		  char *assumed, size_t alen)
{
	if (ffn <= 0 || ffn != 4 * hidden)
		return ffn > 0;
	/* A Llama-family model whose ffn happens to be 4 x hidden is SwiGLU all
	 * the same (nanotron's scaling benchmark 1B: hidden 2048, ffn 8192,
	 * scripts/scaling_benchmarks.py:306 at huggingface/nanotron 0e0a27ea):
	 * its name says so, or nanotron's layer code, whose only model is Llama
	 * (nanotron.ini) */
	bool nanotron = !strcmp(profile, "nanotron");
	if (!nanotron && !valid_llama_family(model))
		return false;
	valid_assume(assumed, alen, "SwiGLU, RMSNorm, no biases (%s), ffn 4 x hidden "
	             "notwithstanding", nanotron ? "nanotron's Llama code" : "a Llama-family model");
	return true;
}

bool valid_nanotron_tied(const char *profile, bool swiglu, long ffn, char *assumed, size_t alen)
{
	/* "model < 4B": scripts/scaling_benchmarks.py:78 at 0e0a27ea, its 1B
	 * and 3B */
	if (strcmp(profile, "nanotron") || !swiglu || ffn <= 0 || ffn >= 10000)
		return false;
	valid_assume(assumed, alen, "tied embeddings (nanotron's scaling benchmark ties them "
	             "below an ffn of 10,000)");
	return true;
}
