package io.perfpin.apps;

import io.perfpin.annotations.Counted;
import java.util.Arrays;

/**
 * Matrix multiply, C = A B on n-by-n doubles, in two loop orders that do the same arithmetic in the same
 * order. {@code ijk} computes each element of C as a dot product, reading B down a column: each read is
 * n doubles past the last, a new cache line every time. {@code ikj} adds a multiple of a row of B to a row
 * of C, reading both in order, which the prefetchers follow and the JIT can vectorise.
 *
 * <p>The inputs are small integers, so every product and sum is exact and the two results must be equal.
 *
 * <p>Usage: {@code java io.perfpin.apps.MatrixMultiply [--n N] [--annotated]}. Threads, one after the other:
 * {@code ijk}, {@code ikj}. {@code --annotated} multiplies through {@link CountedKernels}, whose multiply
 * methods count {@code cache} per call.
 *
 * <p>Result: {@code result matrix n=N ijk-ms=X.XXX ijk-gflops=X.XXX ikj-ms=X.XXX ikj-gflops=X.XXX equal=B}.
 */
public final class MatrixMultiply {
    private MatrixMultiply() {}

    public record Options(int n, boolean annotated) {
        public static Options from(Args args) {
            return new Options(
                    args.intValue("n", 512, 1, 4096),
                    args.flag("annotated", "multiply with the @Counted(\"cache\") methods"));
        }
    }

    /** Each order's time, and whether the two products are equal element for element. */
    public record Result(int n, long ijkNanos, long ikjNanos, boolean equal) implements WorkloadResult {
        /** 2n^3 floating-point operations (a multiply and an add per term) per second, in billions. */
        public double gflops(long nanos) {
            return 2.0 * n * n * n / nanos;
        }

        @Override
        public String line() {
            return new ResultLine("matrix")
                    .add("n", n)
                    .add("ijk-ms", ijkNanos / 1e6)
                    .add("ijk-gflops", gflops(ijkNanos))
                    .add("ikj-ms", ikjNanos / 1e6)
                    .add("ikj-gflops", gflops(ikjNanos))
                    .add("equal", equal)
                    .toString();
        }
    }

    public static Result run(Options options) throws InterruptedException {
        int n = options.n();
        double[][] a = matrix(n, 7);
        double[][] b = matrix(n, 5);
        Kernels kernels = options.annotated() ? new CountedKernels() : new Kernels();
        Multiplication ijk = new Multiplication(kernels, true, a, b);
        Multiplication ikj = new Multiplication(kernels, false, a, b);
        Crew.run("ijk", ijk);
        Crew.run("ikj", ikj);
        return new Result(n, ijk.nanos, ikj.nanos, Arrays.deepEquals(ijk.product, ikj.product));
    }

    public static void main(String[] args) {
        Launcher.main(MatrixMultiply.class, args, Options::from, MatrixMultiply::run);
    }

    /** Small integers, {@code (i * n + j) % modulus}, varied enough that a wrong index shows. */
    static double[][] matrix(int n, int modulus) {
        double[][] m = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                m[i][j] = (i * n + j) % modulus;
            }
        }
        return m;
    }

    /** The two loop orders, each adding the terms of every element of C in k order. */
    static class Kernels {
        void ijk(double[][] a, double[][] b, double[][] c) {
            int n = a.length;
            for (int i = 0; i < n; i++) {
                double[] ai = a[i];
                for (int j = 0; j < n; j++) {
                    double sum = 0;
                    for (int k = 0; k < n; k++) {
                        sum += ai[k] * b[k][j];
                    }
                    c[i][j] = sum;
                }
            }
        }

        void ikj(double[][] a, double[][] b, double[][] c) {
            int n = a.length;
            for (int i = 0; i < n; i++) {
                double[] ci = c[i];
                for (int k = 0; k < n; k++) {
                    double aik = a[i][k];
                    double[] bk = b[k];
                    for (int j = 0; j < n; j++) {
                        ci[j] += aik * bk[j];
                    }
                }
            }
        }
    }

    /** The same loop orders, each call counted for cache misses when the perfpin agent runs. */
    static final class CountedKernels extends Kernels {
        @Counted("cache")
        @Override
        void ijk(double[][] a, double[][] b, double[][] c) {
            super.ijk(a, b, c);
        }

        @Counted("cache")
        @Override
        void ikj(double[][] a, double[][] b, double[][] c) {
            super.ikj(a, b, c);
        }
    }

    /** Multiplies in one loop order into a fresh product, timing itself. */
    static final class Multiplication implements Runnable {
        private final Kernels kernels;
        private final boolean ijk;
        private final double[][] a;
        private final double[][] b;
        final double[][] product;
        long nanos;

        Multiplication(Kernels kernels, boolean ijk, double[][] a, double[][] b) {
            this.kernels = kernels;
            this.ijk = ijk;
            this.a = a;
            this.b = b;
            this.product = new double[a.length][a.length];
        }

        @Override
        public void run() {
            long start = System.nanoTime();
            if (ijk) {
                kernels.ijk(a, b, product);
            } else {
                kernels.ikj(a, b, product);
            }
            nanos = System.nanoTime() - start;
        }
    }
}
