import io.perfpin.jmh.PerfpinProfiler;
import org.openjdk.jmh.profile.ProfilerException;

/**
 * {@code -prof perfpin}: JMH finds a discovered profiler by its class's canonical name, so this short one is a class
 * of that name in the unnamed package, listed in {@code META-INF/services/org.openjdk.jmh.profile.Profiler}.
 * {@code -prof io.perfpin.jmh.PerfpinProfiler} is the same profiler.
 */
public final class perfpin extends PerfpinProfiler {
    public perfpin() throws ProfilerException {
        super();
    }

    public perfpin(String initLine) throws ProfilerException {
        super(initLine);
    }
}
