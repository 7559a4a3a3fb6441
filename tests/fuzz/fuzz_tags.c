// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_tags.c - libFuzzer harness for the VM owner's tag (tags.c), the
 * text any VM owner can put in a domain's metadata: the input is read
 * both as a whole domain XML (the hook's, vcpack's and vcpackd's one
 * reader, vcp_tag_from_domain_xml) and as the bare element
 * (vcp_tag_parse). A refusal says why and leaves the tag untouched; a tag
 * that parses formats to text that parses to the same tag, and both
 * readers agree on a domain wrapped around that text.
 */
#include <errno.h>

#include "fuzz.h"
#include "tags.h"

static bool same(const struct vcp_tag *a, const struct vcp_tag *b)
{
	return a->has_priority == b->has_priority &&
	       a->has_class == b->has_class &&
	       (!a->has_priority || a->priority == b->priority) &&
	       (!a->has_class || a->class == b->class);
}

static void round_trip(const struct vcp_tag *t)
{
	struct vcp_tag back, dom;
	char *text = vcp_tag_format(t), *xml = NULL, *err = NULL;

	FUZZ_CHECK(text);
	FUZZ_CHECK(vcp_tag_parse(text, &back, &err) == 0);
	FUZZ_CHECK(same(t, &back));
	FUZZ_CHECK(asprintf(&xml, "<domain><name>f</name><metadata>"
			    "<v:consolidation xmlns:v=\"%s\"%s</metadata>"
			    "</domain>", VCP_TAG_NS, text + 14) > 0);
	FUZZ_CHECK(vcp_tag_from_domain_xml(xml, &dom, &err) == 0);
	FUZZ_CHECK(same(t, &dom));
	free(xml);
	free(text);
}

/* A refusal says why and writes nothing; a success is a valid tag. */
static void one(int (*parse)(const char *, struct vcp_tag *, char **),
		const char *s)
{
	struct vcp_tag t, mark;
	char *err = NULL;
	int r;

	memset(&mark, 0x5a, sizeof(mark));
	t = mark;
	r = parse(s, &t, &err);
	if (r == -ENOENT || r == -ENOMEM) {
		FUZZ_CHECK(!memcmp(&t, &mark, sizeof(t)));
	} else if (r < 0) {
		FUZZ_CHECK(r == -EINVAL && err && *err);
		FUZZ_CHECK(!memcmp(&t, &mark, sizeof(t)));
	} else {
		FUZZ_CHECK(t.has_priority || t.has_class);
		round_trip(&t);
	}
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	one(vcp_tag_parse, s);
	one(vcp_tag_from_domain_xml, s);
	free(s);
	return 0;
}
