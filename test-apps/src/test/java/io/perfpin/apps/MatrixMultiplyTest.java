package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MatrixMultiplyTest {
    @ParameterizedTest(name = "annotated={0}")
    @ValueSource(booleans = {false, true})
    void bothLoopOrdersGiveTheSameProduct(boolean annotated) throws InterruptedException {
        MatrixMultiply.Result result = MatrixMultiply.run(new MatrixMultiply.Options(40, annotated));
        assertTrue(result.equal(), result.line());
    }

    @Test
    void bothLoopOrdersMultiplyByTheIdentity() {
        int n = 9;
        double[][] a = MatrixMultiply.matrix(n, 7);
        double[][] identity = new double[n][n];
        for (int i = 0; i < n; i++) {
            identity[i][i] = 1;
        }
        MatrixMultiply.Kernels kernels = new MatrixMultiply.Kernels();
        double[][] ijk = new double[n][n];
        double[][] ikj = new double[n][n];
        kernels.ijk(identity, a, ijk);
        kernels.ikj(a, identity, ikj);
        assertArrayEquals(a, ijk);
        assertArrayEquals(a, ikj);
    }
}
