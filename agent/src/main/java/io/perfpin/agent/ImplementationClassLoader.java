package io.perfpin.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Loads the agent's implementation from {@code perfpin-impl/} inside the agent jar, reading entries from one
 * open {@link JarFile}. A {@code URLClassLoader} over a {@code jar:...!/perfpin-impl/} URL would do, but opens
 * a URL connection per class, which cost the agent's start-up a millisecond for each of its two thousand
 * classes. Its parent is the platform class loader, so no application class is ever seen.
 *
 * <p>The libraries that only some uses need are jars of their own, {@code perfpin-impl/lib/NAME.jar}
 * ({@link #LIBRARY_PREFIXES}), opened the first time a class or resource of theirs is asked for: the JVM reads every
 * entry's name in the agent jar's directory as it starts, and byte-buddy, OpenTelemetry, the Prometheus client, JNA
 * and jffi were 4,500 of its 4,900 entries, 4 ms of a short main's start-up, for weaving, exports and backends that
 * most runs never use. A jar is opened by path, so each is copied where the JNI library is
 * ({@code io.perfpin.files.PackagedCopy}: a private directory, a copy used only when every byte of it is the packaged
 * one's). Their classes are defined by this loader too: one runtime package, whichever jar a class comes from. What
 * needs a library asks for one of its classes by name first ({@code OptionalLibrary}), since the JVM keeps a failed
 * reference's error for good, also past a mended cause and a new attach.
 */
final class ImplementationClassLoader extends ClassLoader {
    static final String PREFIX = "perfpin-impl/";

    /**
     * Where each library's entries start; its jar under {@code perfpin-impl/lib/} is {@link #LIBRARY_JARS}' at the same
     * index, as agent/pom.xml builds them. Arrays rather than records: each class of this loader's own is one more that
     * the application class loader reads as premain starts.
     */
    static final String[] LIBRARY_PREFIXES = {
        "net/bytebuddy/", "io/perfpin/shaded/", "com/sun/jna/", "com/kenai/jffi/", "jni/"
    };

    static final String[] LIBRARY_JARS = {"byte-buddy.jar", "exports.jar", "ffi.jar", "ffi.jar", "ffi.jar"};

    /** The package of the hooks, which agent/pom.xml leaves out of {@code perfpin-impl/}: the bootstrap loader's. */
    private static final String HOOKS = "io.perfpin.agent.bootstrap.";

    /** The packages of the classes under {@code perfpin-impl/}: perfpin's, RE2/J's, and its libraries'. */
    private static final String[] OWN_PACKAGES = ownPackages();

    /** What copies a library's jar where it can be opened: a class of the implementation's, so found by name. */
    private static final String INSTALLER = "io.perfpin.files.PackagedCopy";

    static {
        registerAsParallelCapable();
    }

    private final JarFile jar;
    private final String jarUrl;
    private final ProtectionDomain domain;
    /** Each library jar opened so far, by its name: read without a lock once it is there. */
    private final Map<String, JarFile> opened = new ConcurrentHashMap<>();
    /** One lock per library jar, held while it is copied and opened: a library never waits for another. */
    private final Map<String, Object> opening = new HashMap<>();

    /**
     * @param location the agent jar's URL as the application class loader has it, for the classes' code source: one
     *     made from {@code jarPath} would cost premain a URI's parsing
     */
    ImplementationClassLoader(Path jarPath, URL location) throws IOException {
        super("perfpin", ClassLoader.getPlatformClassLoader());
        this.jar = new JarFile(jarPath.toFile());
        if (jar.getEntry(PREFIX) == null) {
            jar.close();
            throw new IllegalStateException("the agent's classes were loaded from " + jarPath + ", which is not the"
                    + " perfpin agent jar: take that copy off the application's class path");
        }
        this.jarUrl = "jar:" + location.toExternalForm() + "!/" + PREFIX;
        this.domain = new ProtectionDomain(new CodeSource(new URL(jarUrl), (Certificate[]) null), null, this, null);
        for (String library : LIBRARY_JARS) {
            opening.putIfAbsent(library, new Object());
        }
    }

    /**
     * The implementation's own classes are looked for here first: asking the platform loader, and through it the
     * bootstrap one, for each of them threw a {@code ClassNotFoundException} per class, stack trace and all, a
     * millisecond of a short main's start over the hundred classes its premain loads. The parent is asked first, as
     * usual, for every other class: the hooks, which the bootstrap loader defines, and any of those packages' classes
     * not found here.
     */
    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!isOwn(name)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) {
                try {
                    loaded = findClass(name);
                } catch (ClassNotFoundException notHere) {
                    // not under perfpin-impl/, the launcher's own classes among them: wherever the parent finds it,
                    // asked directly, since the usual order would look here again
                    try {
                        loaded = getParent().loadClass(name);
                    } catch (ClassNotFoundException notThere) {
                        throw notHere; // why it is not here, as a library jar that could not be copied says
                    }
                }
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }

    /** An array, not a list: asked of every class the loader sees, and an iterator's calls cost while they run cold. */
    private static String[] ownPackages() {
        List<String> packages = new ArrayList<>(List.of("io.perfpin.", "com.google.re2j."));
        for (String prefix : LIBRARY_PREFIXES) {
            packages.add(prefix.replace('/', '.'));
        }
        return packages.toArray(new String[0]);
    }

    /** Whether {@code className} is one of the classes under {@code perfpin-impl/}, its libraries' included. */
    private static boolean isOwn(String className) {
        if (className.startsWith(HOOKS)) {
            return false;
        }
        for (String prefix : OWN_PACKAGES) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        String file = name.replace('.', '/') + ".class";
        byte[] bytes;
        try {
            JarFile holder = jarFor(file);
            JarEntry entry = entry(holder, file);
            if (entry == null) {
                throw new ClassNotFoundException(name);
            }
            try (InputStream in = holder.getInputStream(entry)) {
                // the entry's size is known: read into one array of it, not readAllBytes' buffers and copies
                bytes = entry.getSize() >= 0 ? in.readNBytes((int) entry.getSize()) : in.readAllBytes();
            }
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
        try {
            JarFile holder = jarFor(name);
            JarEntry entry = entry(holder, name);
            return entry == null ? super.getResourceAsStream(name) : holder.getInputStream(entry);
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    protected URL findResource(String name) {
        try {
            JarFile holder = jarFor(name);
            if (entry(holder, name) == null) {
                return null;
            }
            return new URL(
                    holder == jar
                            ? jarUrl + name
                            : "jar:" + Path.of(holder.getName()).toUri() + "!/" + name);
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    protected Enumeration<URL> findResources(String name) {
        URL url = findResource(name);
        return url == null ? Collections.emptyEnumeration() : Collections.enumeration(Collections.singletonList(url));
    }

    /** The jar that holds entry {@code name}: the library its name starts with, or the agent jar. */
    private JarFile jarFor(String name) throws IOException {
        for (int i = 0; i < LIBRARY_PREFIXES.length; i++) {
            if (name.startsWith(LIBRARY_PREFIXES[i])) {
                return library(LIBRARY_JARS[i]);
            }
        }
        return jar;
    }

    /** The entry {@code name} names in {@code in}, which {@link #jarFor} gave; null when there is none. */
    private JarEntry entry(JarFile in, String name) {
        return in.getJarEntry(in == jar ? PREFIX + name : name);
    }

    /** The library jar {@code name}, opened now when it is the first time it is asked for. */
    private JarFile library(String name) throws IOException {
        JarFile open = opened.get(name);
        if (open != null) {
            return open;
        }
        synchronized (opening.get(name)) {
            open = opened.get(name);
            if (open != null) {
                return open;
            }
            String packaged = PREFIX + "lib/" + name;
            JarEntry entry = jar.getJarEntry(packaged);
            if (entry == null) {
                throw new IOException("the agent jar holds no " + packaged + ": rebuild it with ./mvnw -B package");
            }
            byte[] content;
            try (InputStream in = jar.getInputStream(entry)) {
                content = in.readAllBytes();
            }
            try {
                open = new JarFile(copied(name, content).toFile());
            } catch (IOException e) {
                throw new IOException("the agent could not copy its " + name + ": " + e.getMessage(), e);
            }
            opened.put(name, open);
            return open;
        }
    }

    /** The verified copy of the library jar {@code name}, {@code <name without .jar>-<length>-<crc>.jar}. */
    private Path copied(String name, byte[] content) throws IOException {
        String prefix = name.substring(0, name.length() - ".jar".length());
        try {
            return (Path) Class.forName(INSTALLER, true, this)
                    .getMethod("anywhere", String.class, byte[].class, String.class)
                    .invoke(null, prefix, content, ".jar");
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IOException) {
                throw (IOException) e.getCause();
            }
            throw new IOException(String.valueOf(e.getCause()), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IOException(e.toString(), e);
        }
    }
}
