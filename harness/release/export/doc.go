// Package export writes a release as the evaluation tools users already run
// read it: an lmms-eval task directory (LMMSEval) and a VLMEvalKit video
// multiple-choice table (VLMEvalKit).
//
// Both are pure functions of the release: the same release gives the same
// bytes. Neither tool can be installed where vidscreen is built, so the
// layouts follow their code: lmms-eval's TaskConfig and GroupConfig
// (lmms_eval/api/task.py, lmms_eval/api/group.py) and its loading of a
// local dataset file (dataset_path json with data_files, resolved against
// the task directory by lmms_eval/utils.py), and the columns VLMEvalKit's
// video datasets read (vlmeval/dataset/video_base.py, videomme.py,
// mvbench.py: index, video, question, candidates as a Python list literal,
// answer).
package export
