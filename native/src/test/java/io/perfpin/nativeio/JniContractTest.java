package io.perfpin.nativeio;

class JniContractTest extends SyscallsContract {
    @Override
    Backend backend() {
        return Backend.JNI;
    }
}
