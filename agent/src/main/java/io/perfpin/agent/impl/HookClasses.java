package io.perfpin.agent.impl;

import io.perfpin.PerfpinDirectory;
import io.perfpin.nativeio.Backend;
import io.perfpin.nativeio.BootClasses;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.Syscalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Puts the hooks ({@code io.perfpin.agent.bootstrap}) in the bootstrap class loader, once per JVM: the JVM's thread
 * events call them, and code woven into {@code java.lang.Thread} and into any application class can only see them
 * there. Their class files come in a jar of their own inside the implementation ({@value #JAR}), which no class
 * path holds, so no other loader can define a second copy.
 *
 * <p>With perfpin's C library they are defined there directly ({@link BootClasses}), which the JVM does not
 * report and which costs nothing after: an agent attached and detached fifty times leaves the bootstrap search as
 * it was. Without it (the jffi and JNA backends), that small jar is appended to the bootstrap search, the first
 * time only; HotSpot then prints once that class-data sharing covers boot classes only.
 *
 * <p>Nothing may name a hook class before this ran: a class that names one cannot even be verified without it.
 */
final class HookClasses {
    static final String JAR = "perfpin-hooks.jar";
    private static final String PROBE = "io.perfpin.agent.bootstrap.ThreadHooks";

    private HookClasses() {}

    static void install(Syscalls syscalls, Instrumentation instrumentation) throws IOException {
        if (BootClasses.has(PROBE)) {
            return;
        }
        byte[] jar = packagedJar();
        if (syscalls.backend() == Backend.JNI) {
            define(syscalls, jar);
        } else {
            try (JarFile installed =
                    new JarFile(PerfpinDirectory.installedJar(JAR, jar).toFile())) {
                instrumentation.appendToBootstrapClassLoaderSearch(installed);
            }
        }
        if (!BootClasses.has(PROBE)) {
            throw new IllegalStateException("the bootstrap class loader does not find the agent's hooks in " + JAR);
        }
    }

    private static byte[] packagedJar() throws IOException {
        try (InputStream in = HookClasses.class.getClassLoader().getResourceAsStream(JAR)) {
            if (in == null) {
                throw new IOException("the agent jar holds no " + JAR + ": rebuild it with ./mvnw -B package");
            }
            return in.readAllBytes();
        }
    }

    /** Each class of the jar that the bootstrap loader does not have yet: one defined before a failure stays. */
    private static void define(Syscalls syscalls, byte[] jar) throws IOException {
        // a ZipInputStream: a JarInputStream would read and verify the manifest, classes more for premain to load
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jar))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                String file = entry.getName();
                if (!file.endsWith(".class")) {
                    continue;
                }
                String name =
                        file.substring(0, file.length() - ".class".length()).replace('/', '.');
                int rc = BootClasses.has(name) ? 0 : BootClasses.define(syscalls, name, in.readAllBytes());
                if (rc != 0 && !BootClasses.has(name)) {
                    throw new IllegalStateException(
                            "cannot define " + name + " in the bootstrap class loader: " + Errno.name(rc));
                }
            }
        }
    }
}
