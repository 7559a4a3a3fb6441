// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pinmemo.c - per-VM memory of the pins vcpackd set (see pinmemo.h). A
 * VM's pins are kept as one string, "cpulist;cpulist;...|emulator", so
 * that comparing is one strcmp. No I/O.
 */
#include "pinmemo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct memo {
	char *name;
	char *set;		/* what vcpackd set; NULL: nothing known */
	char *respected;	/* foreign pins left alone; NULL: none */
	bool said;		/* this foreign change was reported */
	bool mem_refused; /* libvirt refused to move its memory */
};

struct vcp_pin_memo {
	struct memo *e;
	size_t n;
};

int vcp_pin_memo_new(struct vcp_pin_memo **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

static void memo_clear(struct memo *e)
{
	free(e->name);
	free(e->set);
	free(e->respected);
	memset(e, 0, sizeof(*e));
}

void vcp_pin_memo_free(struct vcp_pin_memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		memo_clear(&m->e[i]);
	free(m->e);
	free(m);
}

static struct memo *find(const struct vcp_pin_memo *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->e[i].name, name))
			return &m->e[i];
	return NULL;
}

/* "0-3;0-3|0-7": @pins (n_vcpus sets) and @emu as one string, each list
 * whole however long (two pinnings differ in their key). */
static char *key_of(const struct vcp_cpuset *pins, unsigned int n_vcpus,
		    const struct vcp_cpuset *emu)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);

	for (unsigned int i = 0; s && i <= n_vcpus; i++) {
		const struct vcp_cpuset *set = i < n_vcpus ? &pins[i] : emu;
		char *text = vcp_cpuset_format_alloc(set);
		size_t l = text ? strlen(text) + 2 : 0;

		if (text && len + l >= cap) {
			char *t = realloc(s, cap = 2 * (len + l));

			if (!t) {
				free(text);
				free(s);
				return NULL;
			}
			s = t;
		}
		if (!text) {
			free(s);
			return NULL;
		}
		len += (size_t)snprintf(s + len, cap - len, "%s%s", text,
					i + 1 < n_vcpus ? ";" :
					i < n_vcpus	? "|" :
							  "");
		free(text);
	}
	return s;
}

size_t vcp_pin_memo_check(struct vcp_pin_memo *m, struct vcp_vm *vms,
			  size_t n_vms, bool respect, const char **ret_names,
			  size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < n_vms; i++) {
		struct memo *e = find(m, vms[i].name);
		char *now;

		if (e && e->mem_refused)
			vms[i].mem_refused = true;
		if (!e || (!e->set && !e->respected) || !vms[i].managed)
			continue;
		now = key_of(vms[i].vcpu_pins, vms[i].n_vcpus,
			     &vms[i].emulator_pins);
		if (!now)
			continue;
		if (e->respected && strcmp(now, e->respected)) {
			/* changed again: ours to plan afresh */
			free(e->respected);
			e->respected = NULL;
			e->said = false;
		} else if (!e->respected && e->set && strcmp(now, e->set)) {
			if (!e->said && n < max)
				ret_names[n++] = vms[i].name;
			e->said = true;
			if (respect)
				e->respected = strdup(now);
		} else if (!e->respected) {
			e->said = false;	/* as we set it: a next change is news */
		}
		if (e->respected)
			vms[i].managed = false;
		free(now);
	}
	return n;
}

static struct memo *get(struct vcp_pin_memo *m, const char *name)
{
	struct memo *e = find(m, name), *arr;

	if (e)
		return e;
	arr = realloc(m->e, (m->n + 1) * sizeof(*arr));
	if (!arr)
		return NULL;
	m->e = arr;
	e = &m->e[m->n];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	if (!e->name)
		return NULL;
	m->n++;
	return e;
}

/* The pins of VM @i once the done actions are laid over the observed. */
static char *set_now(const struct vcp_vm *vm, size_t i,
		     const struct vcp_actions *acts,
		     const struct vcp_apply_result *res)
{
	struct vcp_cpuset *pins = calloc(vm->n_vcpus + 1, sizeof(*pins));
	struct vcp_cpuset emu = vm->emulator_pins;
	char *key;

	if (!pins)
		return NULL;
	memcpy(pins, vm->vcpu_pins, vm->n_vcpus * sizeof(*pins));
	for (size_t k = 0; k < res->n; k++) {
		const struct vcp_action *a = &acts->a[res->e[k].action];

		if (a->vm != i || res->e[k].outcome != VCP_DONE)
			continue;
		if (a->kind == VCP_ACT_PIN_VCPU && a->vcpu < vm->n_vcpus)
			pins[a->vcpu] = a->to;
		else if (a->kind == VCP_ACT_PIN_EMULATOR)
			emu = a->to;
	}
	key = key_of(pins, vm->n_vcpus, &emu);
	free(pins);
	return key;
}

static void drop_unlisted(struct vcp_pin_memo *m, const struct vcp_vm *vms,
			  size_t n_vms)
{
	size_t j = 0;

	for (size_t i = 0; i < m->n; i++) {
		bool listed = false;

		for (size_t v = 0; v < n_vms && !listed; v++)
			listed = !strcmp(vms[v].name, m->e[i].name);
		if (listed)
			m->e[j++] = m->e[i];
		else
			memo_clear(&m->e[i]);
	}
	m->n = j;
}

int vcp_pin_memo_record(struct vcp_pin_memo *m, const struct vcp_vm *vms,
			size_t n_vms, const struct vcp_actions *acts,
			const struct vcp_apply_result *res)
{
	drop_unlisted(m, vms, n_vms);
	for (size_t i = 0; i < n_vms; i++) {
		struct memo *e;
		char *key;

		if (!vms[i].managed)
			continue;
		e = get(m, vms[i].name);
		key = e ? set_now(&vms[i], i, acts, res) : NULL;
		if (!key)
			return -ENOMEM;
		free(e->set);
		e->set = key;
	}
	for (size_t k = 0; k < res->n; k++) {
		const struct vcp_action *a = &acts->a[res->e[k].action];
		struct memo *e;

		if (a->kind != VCP_ACT_SET_MEMORY || a->vm >= n_vms ||
		    res->e[k].outcome != VCP_REFUSED)
			continue;
		e = get(m, vms[a->vm].name);
		if (!e)
			return -ENOMEM;
		e->mem_refused = true;
	}
	return 0;
}

void vcp_pin_memo_forget(struct vcp_pin_memo *m, const char *name)
{
	struct memo *e = find(m, name);

	if (!e)
		return;
	free(e->set);
	free(e->respected);
	e->set = e->respected = NULL;
	e->said = false;
	e->mem_refused = false;
}
