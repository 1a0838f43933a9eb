/**
 * Workloads from the performance literature, and small helpers, for perfpin's tests, demo and benchmarks.
 *
 * <p>Each workload is a class with a {@code main}, a static {@code run(Options)} for callers in the same
 * JVM ({@code Options.from(Args.none())} gives the defaults), and a result whose
 * {@link io.perfpin.apps.WorkloadResult#line() line} it prints last:
 * {@code result <workload> key=value ...} (see {@link io.perfpin.apps.ResultLine}). Options are
 * {@code --key=value} or {@code --key value} ({@link io.perfpin.apps.Args}); a mistake is one line and
 * exit code 2. Sizes are counts, not durations, so that a test can check exactly what ran; the defaults
 * take a couple of seconds on two cores.
 *
 * <p>Every thread a workload starts has a name to write perfpin rules against ({@code ping},
 * {@code adjacent-writer-0}, {@code heap-walk}, {@code alias-4096}, {@code churn-17}, ...).
 *
 * <p>With {@code --annotated}, a workload runs the same work through subclasses that carry
 * {@link io.perfpin.annotations.Pinned} and {@link io.perfpin.annotations.Counted}. Those subclasses
 * declare {@code run()} (or the counted method) again, only calling up: the agent instruments the methods
 * that the annotated class itself declares, and an inherited method is declared elsewhere. Without the
 * agent the annotations do nothing.
 */
package io.perfpin.apps;
