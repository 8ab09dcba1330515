/* gpuname.c - GPUs as case files name them (valid_int.h): the schema's
 * names without a file of their own, names as sources write them ("A100
 * 80GB", "NVIDIA H100 80GB HBM3"), a row whose gpu column is open but
 * whose note, source or model names its GPU, and the defaults a GPU
 * implies (precision, the node's intra-node fabric). Both case readers
 * (runs.c, memrows.c) and serve's use them. */
#include "valid_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The case file's GPU names without a GPU file of their own (memory.csv's,
 * tests/cases/memory-README.md: the form factor not stated) -> GPU files,
 * with the assumption. */
static const struct {
	const char *name, *file, *assumed;
} gpu_alias[] = {
        {"a100-40g", "a100-sxm4-40g", "A100 40 GB form factor not stated: SXM4"},
        {"a100-80g", "a100-sxm4-80g", "A100 80 GB form factor not stated: SXM4"},
        {"h100-80g", "h100-sxm5-80g", "H100 80 GB form factor not stated: SXM5"},
};

/* A GPU named as sources name it ("A100 80GB", "NVIDIA H100 80GB HBM3",
 * "H100 SXM5", "a100"): its GPU file by the family the name holds, the form
 * factor SXM unless it says PCIe and the memory the family's largest SXM
 * part unless it names the smaller one's size (`small`: an A100's 40 GB, a
 * V100's 16 GB), each said; NULL for a name no shipped GPU file is (an
 * A800, an H100 NVL). */
static const struct {
	const char *family, *file, *pcie, *file_small, *pcie_small, *assumed, *small;
} gpu_family[] = {
        /* the superchips first: "gh200" holds "h200", "gb200" "b200" */
        {"gb200", "gb200", NULL, NULL, NULL, "GPU named loosely: GB200", NULL},
        {"gh200", "gh200", NULL, NULL, NULL, "GPU named loosely: GH200", NULL},
        {"h100", "h100-sxm5-80g", "h100-pcie", NULL, NULL,
         "GPU named loosely: H100, SXM5 80 GB unless the name says PCIe", NULL},
        {"h200", "h200-sxm-141g", NULL, NULL, NULL, "GPU named loosely: H200 SXM 141 GB", NULL},
        {"h800", "h800-sxm5-80g", NULL, NULL, NULL, "GPU named loosely: H800 SXM5 80 GB", NULL},
        {"b200", "b200", NULL, NULL, NULL, "GPU named loosely: B200", NULL},
        /* the A100's export variant with NVLink cut (gpus/a800-sxm4-80g.ini) */
        {"a800", "a800-sxm4-80g", NULL, NULL, NULL,
         "GPU named loosely: A800, the SXM4 80 GB part", NULL},
        {"a100", "a100-sxm4-80g", "a100-pcie", "a100-sxm4-40g", "a100-pcie-40g",
         "GPU named loosely: A100, SXM4 unless the name says PCIe, 80 GB unless it says 40", "40"},
        {"v100", "v100-sxm2-32g", NULL, "v100-sxm2-16g", NULL,
         "GPU named loosely: V100, the SXM2 part, 32 GB unless it says 16", "16"},
        /* before the A40 ("l40s" holds no "a40") */
        {"l40s", "l40s", NULL, NULL, NULL, "GPU named loosely: L40S", NULL},
        /* after the A100 ("a100-40g" holds no "a40"; "a40" comes later) */
        {"4090", "rtx-4090", NULL, NULL, NULL, "GPU named loosely: GeForce RTX 4090", NULL},
        {"3090", "rtx-3090", NULL, NULL, NULL, "GPU named loosely: GeForce RTX 3090", NULL},
        {"a40", "a40", NULL, NULL, NULL, "GPU named loosely: A40", NULL},
        {"t4", "t4", NULL, NULL, NULL, "GPU named loosely: T4", NULL},
};

static const char *gpu_loose(const char *gpu, const char **assumed)
{
	char low[64];
	valid_lower(gpu, low, sizeof low);
	/* parts with no GPU file of their own: an H100 NVL (94 GB), H20 (an
	 * export part), V100 SXM3 (DGX-2's, 350 W) */
	if (strstr(low, "nvl") || strstr(low, "sxm3") || (strstr(low, "h20") && !strstr(low, "h200")))
		return NULL;
	for (size_t i = 0; i < sizeof gpu_family / sizeof gpu_family[0]; i++) {
		if (!strstr(low, gpu_family[i].family))
			continue;
		/* the smaller part's size in the name ("a100 40gb", "v100-sxm2-16gb") */
		const char *sm = gpu_family[i].small;
		bool pcie = strstr(low, "pcie") != NULL, small = sm && strstr(low, sm) != NULL;
		if (pcie && !gpu_family[i].pcie)
			return NULL; /* a PCIe card of a family with no PCIe file (A800, H800) */
		const char *file = pcie && small && gpu_family[i].pcie_small ? gpu_family[i].pcie_small
		                   : pcie && gpu_family[i].pcie            ? gpu_family[i].pcie
		                   : small && gpu_family[i].file_small     ? gpu_family[i].file_small
		                                                           : gpu_family[i].file;
		*assumed = gpu_family[i].assumed;
		return file;
	}
	return NULL;
}

const char *valid_gpu_alias(const char *gpu, const char **assumed)
{
	*assumed = NULL;
	for (size_t i = 0; i < sizeof gpu_alias / sizeof gpu_alias[0]; i++)
		if (!strcmp(gpu, gpu_alias[i].name)) {
			*assumed = gpu_alias[i].assumed;
			return gpu_alias[i].file;
		}
	/* a name of the schema (a GPU file's) stays as it is */
	for (size_t i = 0; i < sizeof gpu_family / sizeof gpu_family[0]; i++)
		if (!strcmp(gpu, gpu_family[i].file) ||
		    (gpu_family[i].pcie && !strcmp(gpu, gpu_family[i].pcie)) ||
		    (gpu_family[i].file_small && !strcmp(gpu, gpu_family[i].file_small)) ||
		    (gpu_family[i].pcie_small && !strcmp(gpu, gpu_family[i].pcie_small)))
			return gpu;
	const char *loose = gpu_loose(gpu, assumed);
	return loose ? loose : gpu;
}

const char *valid_default_precision(const char *gpu)
{
	return strstr(gpu, "v100") ? "fp16" : "bf16";
}

const char *valid_default_intra(const char *gpu)
{
	return strstr(gpu, "a100-sxm") || strstr(gpu, "a800-sxm")     ? "nvswitch-gen2"
	       : strstr(gpu, "h100-sxm") || strstr(gpu, "h800") ||
	                         strstr(gpu, "h200")                  ? "nvswitch-gen3"
	       : !strcmp(gpu, "b200")                                 ? "nvswitch-gen4"
	       : !strcmp(gpu, "h100-pcie")                            ? "pcie-gen5"
	       : strstr(gpu, "a100-pcie")                             ? "pcie-gen4"
	       : strstr(gpu, "v100-sxm2")                             ? "nvlink-hcm"
	       : strstr(gpu, "rtx-") || !strcmp(gpu, "a40") ||
	                         !strcmp(gpu, "l40s")                 ? "pcie-gen4"
	       : !strcmp(gpu, "t4")                                   ? "pcie-gen3"
	                                                              : NULL;
}

/* Whether the family name at text[i] (lower case, k bytes) stands alone:
 * not inside a word or a longer number ("gh200" holds no H200, "a1000" no
 * A100), after a count's 'x' ("8xh100") as after a blank, a number family
 * after its brand's letters ("rtx4090"). */
static bool family_at(const char *low, size_t i, size_t k)
{
	char before = i ? low[i - 1] : ' ', after = low[i + k];
	bool lead = !isalnum((unsigned char)before) ||
	            (before == 'x' && i >= 2 && isdigit((unsigned char)low[i - 2])) ||
	            (isdigit((unsigned char)low[i]) && isalpha((unsigned char)before));
	return lead && !isdigit((unsigned char)after) &&
	       !(isalpha((unsigned char)after) && after != 'g' && after != 's' && after != 'p');
}

/* The end of the word (letters, digits, '-') from low[i]. */
static size_t token_end(const char *low, size_t i)
{
	while (isalnum((unsigned char)low[i]) || low[i] == '-')
		i++;
	return i;
}

/* Whether the word at w qualifies a GPU name: its form factor or memory
 * ("sxm5", "pcie", "80gb", "hbm3", "nvl"), not the rest of a sentence
 * ("A100 on 40 nodes" is no 40 GB part). */
static bool qualifier(const char *w)
{
	static const char *const q[] = {"sxm", "pcie", "hbm", "nvl"};
	for (size_t j = 0; j < sizeof q / sizeof q[0]; j++)
		if (!strncmp(w, q[j], strlen(q[j])))
			return true;
	size_t d = strspn(w, "0123456789");
	return d && (!strncmp(w + d, "gb", 2) || !strncmp(w + d, " gb", 3) ||
	             !strncmp(w + d, "g ", 2) || w[d] == 'g');
}

/* The GPU names in `text`: the distinct families it names (their files),
 * and the first one's name with its qualifiers ("h100 sxm5 80gb") in
 * first[flen]; how many. */
static int families_in(const char *text, char *first, size_t flen, char *names, size_t nlen)
{
	char low[4096];
	valid_lower(text, low, sizeof low);
	const char *seen[8];
	int n = 0;
	size_t at_first = SIZE_MAX;
	*names = 0;
	for (size_t f = 0; f < sizeof gpu_family / sizeof gpu_family[0]; f++) {
		size_t k = strlen(gpu_family[f].family);
		for (const char *p = strstr(low, gpu_family[f].family); p;
		     p = strstr(p + 1, gpu_family[f].family)) {
			size_t i = (size_t)(p - low);
			if (!family_at(low, i, k))
				continue;
			bool dup = false;
			for (int j = 0; j < n; j++)
				dup = dup || !strcmp(seen[j], gpu_family[f].file);
			if (!dup && n < 8) {
				seen[n++] = gpu_family[f].file;
				size_t l = strlen(names);
				snprintf(names + l, nlen - l, "%s%s", l ? ", " : "", gpu_family[f].family);
			}
			if (i < at_first) { /* the name and the qualifiers after it */
				at_first = i;
				/* "a100 80gb", "a100-sxm4-40gb", "a100 (40g)" */
				size_t e = token_end(low, i + k), b = e;
				for (;;) {
					b = e + (low[e] == ' ');
					b += low[b] == '(';
					if (b == e || !qualifier(low + b))
						break;
					e = token_end(low, b);
					e += low[e] == ')';
				}
				snprintf(first, flen, "%.*s", (int)(e - i), low + i);
			}
			break;
		}
	}
	return n;
}

/* The GPU an open gpu's node_intra implies where no text names one: the
 * NVSwitch generations and the DGX-1's hybrid cube mesh are each one GPU
 * generation's baseboard (NVIDIA's DGX A100, DGX H100, DGX B200 and DGX-1
 * V100 system guides: NVSwitch gen 2 on HGX A100, gen 3 on HGX H100 / H200 /
 * H800, gen 4 on HGX B200 and the GB200 NVL72 rack), the part a bare family
 * name is (gpu_family: the larger memory), said; the H100 for gen 3, whose
 * H200 and H800 share the board, said so; the GB200 where a "node" of gen 4
 * holds more than the HGX board's 8. PCIe nodes name no GPU: NULL. */
static const char *gpu_of_intra(const cases_csv *c, size_t row, char *said, size_t slen)
{
	static const struct {
		const char *intra, *file, *why;
	} boards[] = {
	        {"nvswitch-gen2", "a100-sxm4-80g", "the HGX A100 baseboard's; 80 GB, the 40 GB part unnamed"},
	        {"nvswitch-gen3", "h100-sxm5-80g",
	         "the HGX H100 baseboard's, which the H200 and H800 share"},
	        {"nvswitch-gen4", "b200", "the HGX B200 baseboard's"},
	        {"nvlink-hcm", "v100-sxm2-32g", "the DGX-1's hybrid cube mesh; 32 GB, the 16 GB part unnamed"},
	};
	int k = cases_csv_col(c, "node_intra"), g = cases_csv_col(c, "gpus_per_node");
	const char *intra = k >= 0 ? cases_csv_get(c, row, k) : "";
	for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++) {
		if (strcmp(intra, boards[i].intra))
			continue;
		bool rack = !strcmp(intra, "nvswitch-gen4") && g >= 0 && atol(cases_csv_get(c, row, g)) > 8;
		const char *file = rack ? "gb200" : boards[i].file;
		snprintf(said, slen, "gpu %s (not published, no text names one: node_intra %s is %s)",
		         file, intra, rack ? "the GB200 NVL72 rack's (over 8 GPUs a node)" : boards[i].why);
		return file;
	}
	return NULL;
}

const char *valid_gpu_named(const cases_csv *c, size_t row, char *said, size_t slen)
{
	static const char *const cols[] = {"note", "source", "model"};
	*said = 0;
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
		int k = cases_csv_col(c, cols[i]);
		if (k < 0)
			continue;
		char first[64] = "", names[160];
		int n = families_in(cases_csv_get(c, row, k), first, sizeof first, names, sizeof names);
		if (n > 1) {
			snprintf(said, slen, "gpu missing, and the %s names several GPUs (%s)", cols[i],
			         names);
			return NULL;
		}
		const char *alias = NULL;
		const char *file = n == 1 ? gpu_loose(first, &alias) : NULL;
		if (file) {
			snprintf(said, slen, "gpu %s (not published: the %s names '%s'%s%s)", file, cols[i],
			         first, alias ? "; " : "", alias ? alias : "");
			return file;
		}
	}
	const char *file = gpu_of_intra(c, row, said, slen);
	if (file)
		return file;
	snprintf(said, slen, "gpu missing (the GPU type decides every rate; no note, source or "
	                     "model names one, nor a node_intra of one GPU's baseboard)");
	return NULL;
}
