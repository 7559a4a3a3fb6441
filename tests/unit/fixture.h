/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixture.h - set-up shared by the cmocka unit tests (tests/unit/fixture.c,
 * which the Makefile links into every test binary): a scratch directory
 * under $TMPDIR and its removal, a fixture tree copied into it, a file
 * written whole, and a fleet
 * observation (the fleet planner's input) built from host objects written
 * with the T_HOST, T_VM and T_ASLEEP macros. Each helper fails the
 * running test when it cannot do its job. Include after cmocka.h.
 */
#ifndef VCP_TEST_FIXTURE_H
#define VCP_TEST_FIXTURE_H

#include <stddef.h>

#include "fleetjson.h"

/* A reachable 10-CPU host (one package) with the VMs @vms (T_VM, ...). */
#define T_HOST(name, vms)                                                    \
	"{\"name\": \"" name "\", \"cpu\": \"c\","                           \
	" \"mem_mib\": 1048576, \"host\": {\"packages\": 1, \"cores\": 10}," \
	" \"vms\": [" vms "]}"
/* A host whose libvirt does not answer. */
#define T_ASLEEP(name) "{\"name\": \"" name "\", \"reachable\": false}"
/* A VM of @vcpus vCPUs using @dem CPUs and 1 GiB. */
#define T_VM(name, vcpus, dem)                                              \
	"{\"name\": \"" name "\", \"vcpus\": " #vcpus ", \"demand\": " #dem \
	", \"mem_mib\": 1024}"

/* Make a new directory $TMPDIR/vcp-WHAT.XXXXXX (/tmp without TMPDIR)
 * into @dir of @size bytes. */
void t_tmpdir(char *dir, size_t size, const char *what);
/* Remove @dir and everything below it. */
void t_rmtree(const char *dir);
/* Copy the tree @src (a fixture) into the directory @dir, as cp -a. */
void t_copy(const char *src, const char *dir);
/* Write @text to @path, replacing what was there. */
void t_put(const char *path, const char *text);
/* The first @len - 1 bytes of @path into @buf, NUL-terminated; a file
 * that cannot be read fails the test. */
void t_slurp(const char *path, char *buf, size_t len);
/* The fleet observation {"policy": {"headroom": 0}, "hosts": [@hosts]}:
 * headroom 0, so a T_HOST's capacity is its 10 CPUs. */
struct vcp_fleet_input *t_fleet_input(const char *hosts);

#endif
