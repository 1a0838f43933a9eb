/**
 * How perfpin reaches files it does not trust: a path walked component by component with {@code O_NOFOLLOW}
 * ({@link io.perfpin.files.PathWalk}, which core's {@code TargetFiles} uses for every file of a target), files
 * a user names for perfpin to write, opened without following a planted link ({@link io.perfpin.files.OutputFile}),
 * and private directories of this user's ({@link io.perfpin.files.OwnedDirectory}).
 *
 * <p>Why this package is in the native module and not in core: it is no longer plain java.nio. java.nio offers
 * no {@code openat} from a directory descriptor, no {@code O_PATH} and no {@code statx} on one, so the walk makes
 * those system calls through {@link io.perfpin.nativeio.FileCalls}; and the native module uses the package
 * itself: {@link io.perfpin.nativeio.JniLibrary} extracts the packaged {@code libperfpin.so} into an
 * {@link io.perfpin.files.OwnedDirectory} under a {@link io.perfpin.files.ContentName}. In core, it would make
 * native and core depend on each other.
 */
package io.perfpin.files;
