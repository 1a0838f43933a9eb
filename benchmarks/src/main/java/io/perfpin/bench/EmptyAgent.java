package io.perfpin.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * A Java agent whose premain returns at once: what {@code -javaagent} costs a JVM before any agent does anything
 * (the JDK loads java.instrument, and with it gives up the module graph its class-data archive holds ready), the
 * floor of every agent written in Java, perfpin's included.
 */
public final class EmptyAgent {
    private EmptyAgent() {}

    public static void premain(String options, Instrumentation instrumentation) {
        // nothing: the cost measured is the JDK's
    }

    /**
     * The agent's jar, made new (never over a file already there) in the private scratch directory: this class alone,
     * and a manifest that names it.
     */
    static Path jar(Workspace workspace) throws IOException {
        Path jar = workspace.scratch("empty-agent.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Premain-Class"), EmptyAgent.class.getName());
        String entry = EmptyAgent.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar, StandardOpenOption.CREATE_NEW);
                JarOutputStream out = new JarOutputStream(file, manifest);
                InputStream bytes = EmptyAgent.class.getResourceAsStream("/" + entry)) {
            if (bytes == null) {
                throw new IOException("cannot read " + entry + " from the benchmarks' own jar");
            }
            out.putNextEntry(new JarEntry(entry));
            bytes.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
