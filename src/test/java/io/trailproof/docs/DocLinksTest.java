package io.trailproof.docs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The documentation stays navigable: every relative link and anchor in {@code README.md} and the
 * pages under {@code src/site/} resolves, and every {@code src/site/<page>.md#<anchor>} that code,
 * benchmarks, index tools or the configuration cite names a page and a heading that exist. A broken
 * one fails naming its file and line.
 */
class DocLinksTest {

    private static final Path ROOT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern CITATION = Pattern.compile("src/site/([A-Za-z0-9_./-]+?\\.md)(#[A-Za-z0-9_-]+)?");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ID = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
    private static final Set<String> CITING_DIRS = Set.of("src", "bench", "index-tools", "config");

    private final Map<Path, Set<String>> anchors = new HashMap<>();

    @Test
    void everyLinkInTheDocumentationResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            broken.addAll(brokenLinks(page));
        }
        assertThat(broken).as("broken links (file:line: link: reason)").isEmpty();
    }

    @Test
    void everyCitationOfAReferencePageResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        int citations = 0;
        for (String dir : CITING_DIRS) {
            Path base = ROOT.resolve(dir);
            if (!Files.isDirectory(base)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(base)) {
                for (Path file : files.filter(Files::isRegularFile).filter(DocLinksTest::isText)
                        .filter(p -> !base.relativize(p).toString().contains("target/")).toList()) {
                    List<String> lines = readLines(file);
                    for (int i = 0; i < lines.size(); i++) {
                        Matcher m = CITATION.matcher(lines.get(i));
                        while (m.find()) {
                            citations++;
                            Path target = ROOT.resolve("src/site").resolve(m.group(1)).normalize();
                            String anchor = m.group(2) == null ? null : m.group(2).substring(1);
                            String problem = problem(target, anchor);
                            if (problem != null) {
                                broken.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + m.group() + ": " + problem);
                            }
                        }
                    }
                }
            }
        }
        assertThat(citations).as("citations of src/site pages found").isPositive();
        assertThat(broken).as("citations that do not resolve (file:line: citation: reason)").isEmpty();
    }

    @Test
    void theDocumentationSpeaksOfTheProductOnly() throws IOException {
        Pattern outside = Pattern.compile("\\.\\./shared|CONTRACT\\s+\\d|\\bissue\\s+#?\\d|\\(#\\d+\\)");
        List<String> found = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = readLines(page);
            for (int i = 0; i < lines.size(); i++) {
                if (outside.matcher(lines.get(i)).find()) {
                    found.add(ROOT.relativize(page) + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertThat(found).as("references to a specification or tracker outside the repository").isEmpty();
    }

    @Test
    void theQuickStartKeepsItsTwoCommands() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        assertThat(readme).contains("mvn -q -DskipTests package && target/trailproof/bin/trailproof serve")
                .contains("\n.ci/run ");
    }

    @Test
    void anchorsFollowGitHubRules() {
        assertThat(slug("The Merkle tree")).isEqualTo("the-merkle-tree");
        assertThat(slug("`GET /v1/agents`: who is there")).isEqualTo("get-v1agents-who-is-there");
        assertThat(slug("Readers see one readable size")).isEqualTo("readers-see-one-readable-size");
        assertThat(slug("Disk full, failing fsync")).isEqualTo("disk-full-failing-fsync");
        assertThat(slug("6.1 Which timestamps a package carries")).isEqualTo("61-which-timestamps-a-package-carries");
        assertThat(slug("Why not [MapDB](x.md)?")).isEqualTo("why-not-mapdb");
        assertThat(slug("snake_case and *emphasis*")).isEqualTo("snake_case-and-emphasis");
    }

    @Test
    void aBrokenLinkIsFoundWithItsLine(@TempDir Path dir) throws IOException {
        Path page = dir.resolve("page.md");
        Files.writeString(page, String.join("\n",
                "# Title", "", "## Part one", "See [part](#part-one) and [missing](#nowhere).",
                "```", "[inside a fence](#ignored)", "```",
                "And [a file](other.md#part-two), [no file](gone.md) and `[code](#also-ignored)`."));
        Files.writeString(dir.resolve("other.md"), "## Part two\n");
        List<String> broken = brokenLinks(page);
        assertThat(broken).hasSize(2);
        assertThat(broken.get(0)).contains(":4: #nowhere");
        assertThat(broken.get(1)).contains(":8: gone.md");
    }

    /** README.md and every Markdown file under src/site/. */
    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> files = Files.walk(ROOT.resolve("src/site"))) {
            files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    private List<String> brokenLinks(Path page) {
        List<String> broken = new ArrayList<>();
        List<String> lines = readLines(page);
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", ""));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    continue; // http:, https:, mailto:
                }
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
                String problem = problem(file, anchor);
                if (problem != null) {
                    broken.add(displayed(page) + ":" + (i + 1) + ": " + target + ": " + problem);
                }
            }
        }
        return broken;
    }

    private static String displayed(Path page) {
        return page.startsWith(ROOT) ? ROOT.relativize(page).toString() : page.toString();
    }

    /** Why a link to {@code file#anchor} does not resolve, or null when it does. */
    private String problem(Path file, String anchor) {
        if (!Files.exists(file)) {
            return "no such file";
        }
        if (anchor == null || anchor.isEmpty()) {
            return null;
        }
        if (!file.toString().endsWith(".md")) {
            return "an anchor into a file that is not Markdown";
        }
        return anchorsOf(file).contains(anchor) ? null : "no heading with anchor #" + anchor;
    }

    private Set<String> anchorsOf(Path file) {
        return anchors.computeIfAbsent(file, f -> {
            Set<String> found = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            boolean fenced = false;
            for (String line : readLines(f)) {
                if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
                    fenced = !fenced;
                    continue;
                }
                if (fenced) {
                    continue;
                }
                Matcher id = HTML_ID.matcher(line);
                while (id.find()) {
                    found.add(id.group(1));
                }
                Matcher h = HEADING.matcher(line);
                if (h.matches()) {
                    String base = slug(h.group(2));
                    int n = seen.merge(base, 1, Integer::sum) - 1;
                    found.add(n == 0 ? base : base + "-" + n);
                }
            }
            return found;
        });
    }

    /** GitHub's heading anchor: link text kept, lower case, punctuation dropped, spaces to hyphens. */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
        return text.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N}\\p{M}\\p{Pc} -]", "")
                .replace(' ', '-');
    }

    private static boolean isText(Path file) {
        String name = file.getFileName().toString();
        return !name.matches(".*\\.(png|jpg|jpeg|gif|ico|jar|class|woff2?|tar|gz|bin|seg|hash)$");
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (MalformedInputException e) {
            return List.of(); // not text
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
