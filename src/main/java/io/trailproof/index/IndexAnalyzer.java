package io.trailproof.index;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.DelegatingAnalyzerWrapper;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;

/**
 * One analyzer for indexing and query parsing, chosen by field name: keyword fields (including every
 * dynamic {@code label.*}) stay one exact term, so {@code agent_id:agent-007} matches that agent and
 * no other; everything else is standard text (lower-cased words, no stop words).
 */
final class IndexAnalyzer extends DelegatingAnalyzerWrapper {

    private final Analyzer keyword = new KeywordAnalyzer();
    private final Analyzer text = new StandardAnalyzer();

    IndexAnalyzer() {
        super(PER_FIELD_REUSE_STRATEGY);
    }

    @Override
    protected Analyzer getWrappedAnalyzer(String fieldName) {
        return IndexFields.isKeyword(fieldName) ? keyword : text;
    }

    @Override
    public void close() {
        keyword.close();
        text.close();
        super.close();
    }
}
