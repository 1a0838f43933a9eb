package net.bytebuddy.agent.builder;

import static net.bytebuddy.matcher.ElementMatchers.none;

import java.util.Collections;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.dynamic.ClassFileLocator;

/**
 * byte-buddy's default agent builder, less the side effects of its public constructors on the host: those
 * create a self-injection strategy whose set-up defines byte-buddy's {@code Nexus} class in the application
 * class loader and, on JDK 24 and newer, makes the JVM warn about {@code sun.misc.Unsafe} on stderr. perfpin
 * weaves advice only and needs no initialisation, so it starts from the protected constructor with no-op
 * initialisation instead. The other arguments are byte-buddy's own defaults (1.18).
 *
 * <p>It sits in byte-buddy's package because some of those arguments' types are protected there; the agent's
 * class loader holds both, so they share the package at run time.
 */
public final class QuietAgentBuilder extends AgentBuilder.Default {
    public QuietAgentBuilder() {
        super(
                new ByteBuddy(),
                Listener.NoOp.INSTANCE,
                new CircularityLock.Default(),
                PoolStrategy.Default.FAST,
                TypeStrategy.Default.DECORATE,
                LocationStrategy.ForClassLoader.STRONG,
                ClassFileLocator.NoOp.INSTANCE,
                NativeMethodStrategy.Disabled.INSTANCE,
                WarmupStrategy.NoOp.INSTANCE,
                TransformerDecorator.NoOp.INSTANCE,
                InitializationStrategy.NoOp.INSTANCE,
                RedefinitionStrategy.DISABLED,
                RedefinitionStrategy.DiscoveryStrategy.SinglePass.INSTANCE,
                RedefinitionStrategy.BatchAllocator.ForTotal.INSTANCE,
                RedefinitionStrategy.Listener.NoOp.INSTANCE,
                RedefinitionStrategy.ResubmissionStrategy.Disabled.INSTANCE,
                InjectionStrategy.Disabled.INSTANCE,
                LambdaInstrumentationStrategy.DISABLED,
                DescriptionStrategy.Default.HYBRID,
                FallbackStrategy.ByThrowableType.ofOptionalTypes(),
                ClassFileBufferStrategy.Default.RETAINING,
                InstallationListener.NoOp.INSTANCE,
                new RawMatcher.ForElementMatchers(none()),
                Collections.emptyList());
    }
}
