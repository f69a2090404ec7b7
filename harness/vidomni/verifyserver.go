package vidomni

import "context"

// verifyByServer is MethodServer: the model behind opt.URL gets each
// pair's frames and the paper's prompt and writes its reply. The replies
// are stored raw and parsed when scored, so that a change to the parser
// needs no second run; res.Replies counts those that parse now.
func verifyByServer(ctx context.Context, opt VerifyOptions, env Env, frames *FrameSampler, pairs []*Pair, res *VerifyResult) ([]verdictRecord, error) {
	c, err := opt.client()
	if err != nil {
		return nil, err
	}
	if res.Verifier == "" {
		res.Verifier = opt.Model
	}
	replies, failed, err := VerifyChat(ctx, c, frames, pairs, opt.Seed)
	if err != nil {
		return nil, err
	}
	res.skip(env, failed)
	lines := make([]verdictRecord, len(replies))
	parsed := 0
	for i, r := range replies {
		if _, err := ParseReply(r.Reply, len(r.Pair.Sentences)); err == nil {
			parsed++
		}
		lines[i] = verdictRecord{Pair: r.Pair.ID, Verifier: res.Verifier, Reply: &replies[i].Reply}
	}
	res.Replies = &ReplyCount{Replies: len(replies), Parsed: parsed}
	return lines, nil
}
