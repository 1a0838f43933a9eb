#ifndef PERFPIN_GLIBCFLOOR_H
#define PERFPIN_GLIBCFLOOR_H

/*
 * Both libraries load on glibc 2.17 and later (RHEL 7 and every distribution since: the oldest glibc a JDK 17 runs
 * on), which the build checks (GLIBC_FLOOR in the Makefile). The linker binds each function to the newest version
 * of the glibc that builds them, and a dynamic linker that lacks that version refuses the library: the JVM then
 * stops at its start, given -agentpath:libperfpin-agent.so. glibc 2.34 moved dlopen, dlsym, dladdr and the pthread
 * functions from libdl and libpthread into libc under the version GLIBC_2.34, and keeps their first version beside
 * it: bound to that one, a glibc before 2.34 finds them in libdl and libpthread, which the JVM has loaded. stat and
 * fstat became functions of their own in 2.33 and have no older version: rawcalls.h makes their system calls.
 * Each file that calls one of them includes this; in another a line here binds nothing.
 */
__asm__(".symver dladdr,dladdr@GLIBC_2.2.5");
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver pthread_key_create,pthread_key_create@GLIBC_2.2.5");
__asm__(".symver pthread_once,pthread_once@GLIBC_2.2.5");
__asm__(".symver pthread_setspecific,pthread_setspecific@GLIBC_2.2.5");

#endif
