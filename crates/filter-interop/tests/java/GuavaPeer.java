// filterlab's peer for the Guava interop tests (../guava_peer.rs): Guava's own BloomFilter,
// driven through files. Compiled by the tests with javac against Debian's libguava-java.
//
// Key files: each key as a big-endian int length, then its bytes. Funnel: "bytes" for
// Funnels.byteArrayFunnel(), "utf8" for Funnels.stringFunnel(UTF_8) over the keys decoded as
// UTF-8.
//
//   build STRATEGY N FPP KEYS OUT FUNNEL   BloomFilter.create(funnel, N, FPP), put every key,
//                                          writeTo OUT. STRATEGY 64 is create's own
//                                          (MURMUR128_MITZ_64); 32 is MURMUR128_MITZ_32, reached
//                                          through the public API: the empty filter's bytes with
//                                          ordinal 0, read back with readFrom, then filled.
//   query IN PROBES ANSWERS FUNNEL         readFrom IN, then one byte per probe into ANSWERS:
//                                          '1' if mightContain, else '0'. Prints the filter's
//                                          approximateElementCount() and expectedFpp().
//   sizes IN                               lines "N FPP" in; prints "N FPP BITS K RULE" with
//                                          Guava's optimalNumOfBits and optimalNumOfHashFunctions
//                                          (package-private: read by reflection), and, when small
//                                          enough to build, the longs and k of the filter create()
//                                          writes.
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

public final class GuavaPeer {
  private GuavaPeer() {}

  static List<byte[]> readKeys(String path) throws IOException {
    List<byte[]> keys = new ArrayList<>();
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(new FileInputStream(path), 1 << 16))) {
      while (true) {
        int len;
        try {
          len = in.readInt();
        } catch (EOFException end) {
          return keys;
        }
        byte[] key = new byte[len];
        in.readFully(key);
        keys.add(key);
      }
    }
  }

  /** The funnel's type, and how a key's bytes become a value of it. */
  static final class Keyed<T> {
    final Funnel<T> funnel;
    final Function<byte[], T> of;

    Keyed(Funnel<T> funnel, Function<byte[], T> of) {
      this.funnel = funnel;
      this.of = of;
    }
  }

  static Keyed<?> keyed(String name) {
    switch (name) {
      case "bytes":
        return new Keyed<byte[]>(Funnels.byteArrayFunnel(), b -> b);
      case "utf8":
        return new Keyed<CharSequence>(
            Funnels.stringFunnel(StandardCharsets.UTF_8),
            b -> new String(b, StandardCharsets.UTF_8));
      default:
        throw new IllegalArgumentException("funnel must be bytes or utf8, not " + name);
    }
  }

  static <T> void build(String strategy, long n, double fpp, String keys, String out, Keyed<T> k)
      throws IOException {
    BloomFilter<T> filter = BloomFilter.create(k.funnel, n, fpp);
    if (strategy.equals("32")) {
      ByteArrayOutputStream empty = new ByteArrayOutputStream();
      filter.writeTo(empty);
      byte[] bytes = empty.toByteArray();
      bytes[0] = 0; // MURMUR128_MITZ_32's ordinal
      filter = BloomFilter.readFrom(new ByteArrayInputStream(bytes), k.funnel);
    } else if (!strategy.equals("64")) {
      throw new IllegalArgumentException("strategy must be 32 or 64, not " + strategy);
    }
    for (byte[] key : readKeys(keys)) {
      filter.put(k.of.apply(key));
    }
    try (OutputStream o = new BufferedOutputStream(new FileOutputStream(out), 1 << 16)) {
      filter.writeTo(o);
    }
  }

  static <T> void query(String in, String probes, String answers, Keyed<T> k) throws IOException {
    BloomFilter<T> filter;
    try (InputStream i = new BufferedInputStream(new FileInputStream(in), 1 << 16)) {
      filter = BloomFilter.readFrom(i, k.funnel);
    }
    List<byte[]> keys = readKeys(probes);
    byte[] out = new byte[keys.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) (filter.mightContain(k.of.apply(keys.get(i))) ? '1' : '0');
    }
    Files.write(Paths.get(answers), out);
    System.out.println(
        "approximateElementCount " + filter.approximateElementCount()
            + " expectedFpp " + Double.toString(filter.expectedFpp()));
  }

  static void sizes(String in) throws Exception {
    Method bits = BloomFilter.class.getDeclaredMethod("optimalNumOfBits", long.class, double.class);
    bits.setAccessible(true);
    Method hashesOfBits = null;
    Method hashesOfFpp = null;
    for (Method m : BloomFilter.class.getDeclaredMethods()) {
      if (m.getName().equals("optimalNumOfHashFunctions")) {
        m.setAccessible(true);
        if (m.getParameterCount() == 2) {
          hashesOfBits = m;
        } else {
          hashesOfFpp = m;
        }
      }
    }
    for (String line : Files.readAllLines(Paths.get(in))) {
      String[] f = line.trim().split(" ");
      long n = Long.parseLong(f[0]);
      double fpp = Double.parseDouble(f[1]);
      long b = (Long) bits.invoke(null, Math.max(n, 1), fpp);
      String k;
      String rule;
      if (hashesOfBits != null) {
        k = String.valueOf(hashesOfBits.invoke(null, Math.max(n, 1), b));
        rule = "bits_per_item";
      } else {
        k = String.valueOf(hashesOfFpp.invoke(null, fpp));
        rule = "fpp";
      }
      String built = "-";
      if (b > 0 && b <= (1L << 24)) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        BloomFilter.create(Funnels.byteArrayFunnel(), n, fpp).writeTo(o);
        byte[] h = o.toByteArray();
        int longs = ((h[2] & 0xff) << 24) | ((h[3] & 0xff) << 16) | ((h[4] & 0xff) << 8) | (h[5] & 0xff);
        built = longs + " " + (h[1] & 0xff);
      }
      System.out.println(n + " " + f[1] + " " + b + " " + k + " " + rule + " " + built);
    }
  }

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "build":
        build(args[1], Long.parseLong(args[2]), Double.parseDouble(args[3]), args[4], args[5],
            keyed(args[6]));
        break;
      case "query":
        query(args[1], args[2], args[3], keyed(args[4]));
        break;
      case "sizes":
        sizes(args[1]);
        break;
      default:
        throw new IllegalArgumentException("usage: build | query | sizes (see the header)");
    }
  }
}
