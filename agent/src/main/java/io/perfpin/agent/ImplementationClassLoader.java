package io.perfpin.agent;

import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.Collections;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Loads the agent's implementation from {@code perfpin-impl/} inside the agent jar, reading entries from one
 * open {@link JarFile}. A {@code URLClassLoader} over a {@code jar:...!/perfpin-impl/} URL would do, but opens
 * a URL connection per class, which cost the agent's start-up a millisecond for each of its two thousand
 * classes. Its parent is the platform class loader, so no application class is ever seen.
 */
final class ImplementationClassLoader extends ClassLoader {
    static final String PREFIX = "perfpin-impl/";

    static {
        registerAsParallelCapable();
    }

    private final JarFile jar;
    private final String jarUrl;
    private final ProtectionDomain domain;

    ImplementationClassLoader(Path jarPath) throws IOException {
        super("perfpin", ClassLoader.getPlatformClassLoader());
        this.jar = new JarFile(jarPath.toFile());
        if (jar.getEntry(PREFIX) == null) {
            jar.close();
            throw new IllegalStateException("the agent's classes were loaded from " + jarPath + ", which is not the"
                    + " perfpin agent jar: take that copy off the application's class path");
        }
        this.jarUrl = "jar:" + jarPath.toUri() + "!/" + PREFIX;
        this.domain = new ProtectionDomain(new CodeSource(new URL(jarUrl), (Certificate[]) null), null, this, null);
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        JarEntry entry = jar.getJarEntry(PREFIX + name.replace('.', '/') + ".class");
        if (entry == null) {
            throw new ClassNotFoundException(name);
        }
        byte[] bytes;
        try (InputStream in = jar.getInputStream(entry)) {
            // the entry's size is known: read into one array of it, not readAllBytes' buffers and copies
            bytes = entry.getSize() >= 0 ? in.readNBytes((int) entry.getSize()) : in.readAllBytes();
        } catch (IOException e) {
            throw new ClassNotFoundException(name + ": " + e.getMessage(), e);
        }
        definePackageOf(name);
        return defineClass(name, bytes, 0, bytes.length, domain);
    }

    private void definePackageOf(String className) {
        int dot = className.lastIndexOf('.');
        if (dot > 0) {
            String packageName = className.substring(0, dot);
            if (getDefinedPackage(packageName) == null) {
                try {
                    definePackage(packageName, null, null, null, null, null, null, null);
                } catch (IllegalArgumentException raced) {
                    // another thread defined it first
                }
            }
        }
    }

    /** Read from the open jar: a URL connection would open the whole jar a second time (the JNI library). */
    @Override
    public InputStream getResourceAsStream(String name) {
        JarEntry entry = jar.getJarEntry(PREFIX + name);
        if (entry == null) {
            return super.getResourceAsStream(name);
        }
        try {
            return jar.getInputStream(entry);
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    protected URL findResource(String name) {
        if (jar.getEntry(PREFIX + name) == null) {
            return null;
        }
        try {
            return new URL(jarUrl + name);
        } catch (MalformedURLException e) {
            return null;
        }
    }

    @Override
    protected Enumeration<URL> findResources(String name) {
        URL url = findResource(name);
        return url == null ? Collections.emptyEnumeration() : Collections.enumeration(Collections.singletonList(url));
    }
}
