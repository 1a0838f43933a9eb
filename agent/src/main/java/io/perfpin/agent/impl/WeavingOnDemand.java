package io.perfpin.agent.impl;

import io.perfpin.nativeio.OptionalLibrary;
import io.perfpin.stats.AgentNotice;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Supplier;

/**
 * Weaves perfpin's annotations, and loads byte-buddy to do it only when a class that carries one appears.
 * Where the JVM reports thread starts itself, nothing else needs weaving, and an application without
 * annotations never pays byte-buddy's start-up (its thousand classes, run cold). A class is a candidate when its
 * constant pool names {@code io/perfpin/annotations/}: a byte search, no parsing, no class loading.
 */
final class WeavingOnDemand implements ClassFileTransformer {
    /** A class of byte-buddy's, asked for by name ({@link OptionalLibrary}). */
    static final String BYTE_BUDDY = "net.bytebuddy.ByteBuddy";

    private static final byte[] MARKER = "Lio/perfpin/annotations/".getBytes(StandardCharsets.UTF_8);

    private final AnnotationValues values;
    /**
     * What woven methods register with, asked when the first annotated class appears: an agent that starts in the
     * background makes the class wait for it ({@link AgentStart}); null when that start failed or took too long.
     */
    private final Supplier<MethodCounting> methods;

    private static final ClassLoader PLATFORM = ClassLoader.getPlatformClassLoader();

    private final ClassLoader own = WeavingOnDemand.class.getClassLoader();
    /** The classes woven, by loader, to take back at detach; the boot loader's under null. Guarded by itself. */
    private final Map<ClassLoader, Set<String>> woven = new WeakHashMap<>();
    /**
     * Set by {@link #reset}, under {@link #woven}'s lock: a weave under way as the detach comes (an attach's weaving
     * of the classes already loaded, say) is not installed, since reset would not know to take it back.
     */
    private boolean closed;

    private volatile ClassFileTransformer weaver;
    private volatile boolean broken;

    private WeavingOnDemand(AnnotationValues values, Supplier<MethodCounting> methods) {
        this.values = values;
        this.methods = methods;
    }

    static WeavingOnDemand install(
            Instrumentation instrumentation, AnnotationValues values, Supplier<MethodCounting> methods) {
        WeavingOnDemand onDemand = new WeavingOnDemand(values, methods);
        instrumentation.addTransformer(onDemand, true);
        return onDemand;
    }

    @Override
    public byte[] transform(
            Module module,
            ClassLoader loader,
            String className,
            Class<?> redefined,
            ProtectionDomain domain,
            byte[] bytes)
            throws IllegalClassFormatException {
        if (className == null || loader == own || broken || isJdks(loader, className) || !contains(bytes, MARKER)) {
            return null;
        }
        ClassFileTransformer weaver = weaver();
        if (weaver == null) {
            return null;
        }
        byte[] result = weaver.transform(module, loader, className, redefined, domain, bytes);
        if (result == null) {
            return null;
        }
        synchronized (woven) {
            if (closed) {
                return null;
            }
            woven.computeIfAbsent(loader, l -> new HashSet<>()).add(className);
        }
        return result;
    }

    /**
     * Whether the class is the JDK's own, which cannot carry perfpin's annotations: most classes loaded while an
     * application starts are, and searching each one's bytes (interpreted, then compiled because it is hot) was a
     * good part of what the agent added to a short JVM's CPU time. A class on {@code -Xbootclasspath/a} is the
     * boot loader's too, but not in the JDK's packages, so it is still searched.
     */
    private static boolean isJdks(ClassLoader loader, String className) {
        return (loader == null || loader == PLATFORM)
                && (className.startsWith("java/")
                        || className.startsWith("jdk/")
                        || className.startsWith("sun/")
                        || className.startsWith("com/sun/"));
    }

    /**
     * Weaves the annotated classes already loaded, as after a dynamic attach: they are found by their class
     * files, read through their loaders, so no annotation class is loaded on perfpin's account. A class generated
     * at run time (a lambda's, a proxy's, JDK 17's reflection accessors) has no class file: asking its loader for
     * one would search, and open, every jar of the application's class path for nothing.
     */
    void weaveLoaded(Instrumentation instrumentation) {
        List<Class<?>> candidates = new ArrayList<>();
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            ClassLoader loader = type.getClassLoader();
            if (loader != null
                    && loader != own
                    && !type.isArray()
                    && hasClassFile(type)
                    && instrumentation.isModifiableClass(type)
                    && classFileNamesAnnotations(loader, type.getName())) {
                candidates.add(type);
            }
        }
        retransform(instrumentation, candidates);
    }

    /**
     * {@link #weaveLoaded}, on a thread of its own after an attach: whatever it throws is said once, rather than handed
     * to the application's handler of uncaught exceptions. The classes it had not come to stay as they are.
     */
    void weaveLoadedOnce(Instrumentation instrumentation) {
        try {
            weaveLoaded(instrumentation);
        } catch (RuntimeException | Error e) {
            try {
                AgentLog.say(AgentNotice.failure("cannot weave the annotated classes loaded before the attach", e));
            } catch (RuntimeException | Error unsaid) {
                // no heap left to say it
            }
        }
    }

    /** Detach: stops weaving and gives every woven class its own code back. */
    void reset(Instrumentation instrumentation) {
        instrumentation.removeTransformer(this);
        List<Class<?>> toRestore = new ArrayList<>();
        synchronized (woven) {
            closed = true;
            for (Class<?> type : instrumentation.getAllLoadedClasses()) {
                Set<String> names = woven.get(type.getClassLoader());
                if (names != null && names.contains(type.getName().replace('.', '/'))) {
                    toRestore.add(type);
                }
            }
        }
        retransform(instrumentation, toRestore);
    }

    private static void retransform(Instrumentation instrumentation, List<Class<?>> types) {
        if (!types.isEmpty()) {
            try {
                instrumentation.retransformClasses(types.toArray(new Class<?>[0]));
            } catch (Exception | LinkageError e) {
                AgentLog.say(AgentNotice.failure("cannot retransform " + types.size() + " annotated classes", e));
            }
        }
    }

    /**
     * Asked before {@link Weaving}, whose every use links byte-buddy's classes, is touched ({@link OptionalLibrary}).
     *
     * @throws IllegalStateException saying why byte-buddy cannot be loaded
     */
    static void requireByteBuddy() {
        String why = OptionalLibrary.unavailable(BYTE_BUDDY);
        if (why != null) {
            throw new IllegalStateException("byte-buddy: " + why);
        }
    }

    /** Null when there is no agent to weave for: its start failed, or this class did not wait any longer. */
    private ClassFileTransformer weaver() {
        ClassFileTransformer current = weaver;
        if (current == null) {
            MethodCounting counting = methods.get(); // not under the lock: a class that waits holds no other up
            if (counting == null) {
                return null;
            }
            synchronized (this) {
                current = weaver;
                if (current == null) {
                    try {
                        requireByteBuddy();
                        current = Weaving.annotationsOnly(values, counting);
                    } catch (RuntimeException | LinkageError e) {
                        broken = true;
                        AgentLog.say(AgentNotice.failure("cannot weave perfpin's annotations, they are ignored", e));
                        return new ClassFileTransformer() {
                            // weaves nothing: broken is set, so it is not called again
                        };
                    }
                    weaver = current;
                }
            }
        }
        return current;
    }

    private static boolean hasClassFile(Class<?> type) {
        return !type.isHidden() && type.getProtectionDomain().getCodeSource() != null;
    }

    static boolean classFileNamesAnnotations(ClassLoader loader, String className) {
        try (InputStream in = loader.getResourceAsStream(className.replace('.', '/') + ".class")) {
            return in != null && contains(in.readAllBytes(), MARKER);
        } catch (IOException | RuntimeException | LinkageError | ServiceConfigurationError e) {
            return false; // the loader's own failure, for this class: the others are looked at all the same
        }
    }

    static boolean contains(byte[] bytes, byte[] marker) {
        outer:
        for (int i = 0; i <= bytes.length - marker.length; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (bytes[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
