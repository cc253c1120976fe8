package dev.pools.it.apps;

import dev.pools.api.MemoryPools;
import it.host.Tensors;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The JDK's own users of direct buffers, next to an intercepted host class: file and socket I/O
 * with heap buffers (the JDK copies them through temporary direct buffers of its own).
 */
public final class JdkBuffers {

    public static void main(String[] args) throws Exception {
        ByteBuffer tensor = Tensors.allocate(4096);
        System.out.println("host-pooled " + MemoryPools.usage().numberAllocs());

        byte[] data = new byte[300_000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7);
        }
        Path file = Files.createTempFile("pools", ".bin");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(data));
        }
        byte[] back = new byte[data.length];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer into = ByteBuffer.wrap(back);
            while (into.hasRemaining() && ch.read(into) >= 0) {
                // read it all
            }
        }
        Files.delete(file);
        System.out.println("file-roundtrip " + Arrays.equals(data, back));

        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel client = SocketChannel.open(server.getLocalAddress());
                SocketChannel accepted = server.accept()) {
            client.write(ByteBuffer.wrap(data));
            client.shutdownOutput();
            ByteBuffer received = ByteBuffer.allocate(data.length);
            while (received.hasRemaining() && accepted.read(received) >= 0) {
                // read it all
            }
            System.out.println("socket-roundtrip " + Arrays.equals(data, received.array()));
        }
        System.out.println("pooled-after-io " + MemoryPools.usage().numberAllocs());
        System.out.println("tensor " + tensor.capacity());
    }
}
