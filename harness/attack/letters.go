package attack

// A letterScorer is a model reader that scores the option letters by
// log-probability (lm_reader or vlm_reader): its margin is a model's
// confidence, which the solve rule reads.
type letterScorer interface{ scoresLetters() }

// ScoresLetters reports whether a is a model reader whose answer comes with
// letter log-probabilities, so that an item falls to it only when it is
// right AND confident (solve.Confident; Video-Index 5.1, the authors' pool
// screen). Learners and embedding matchers are judged by correctness alone.
func ScoresLetters(a Attacker) bool {
	_, ok := a.(letterScorer)
	return ok
}

func (*optionsReader) scoresLetters()   {}
func (*blindReader) scoresLetters()     {}
func (*captionsReader) scoresLetters()  {}
func (*centreReader) scoresLetters()    {}
func (*shuffledReader) scoresLetters()  {}
func (*tenthReader) scoresLetters()     {}
func (*fullVideoReader) scoresLetters() {}
