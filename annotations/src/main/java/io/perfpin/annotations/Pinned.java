package io.perfpin.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Pins the thread that runs the annotated {@code Runnable}, {@code Callable} or {@code Thread} subclass,
 * from the first instruction of its {@code run()}/{@code call()}.
 *
 * <p>Without the perfpin agent this annotation does nothing: the application runs as it would.
 * The agent matches it by name, so this class is never loaded on the agent's account.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Pinned {
    /**
     * Where to run: a CPU list in Linux syntax ({@code "2"}, {@code "2-3,6"}), or a placement:
     * {@code "isolated"} (a CPU from the kernel's isolated set), {@code "core"} (a whole physical core,
     * no SMT sibling shared with another pinned thread) or {@code "any"}.
     */
    String value();
}
