"""vidscreen's video multiple-choice dataset for VLMEvalKit.

VLMEvalKit has no generic video multiple-choice dataset: `run.py --data NAME`
finds a dataset by the classes that vlmeval/dataset/__init__.py lists, and an
unknown NAME with LMUData/NAME.tsv becomes an image or text dataset, never a
video one. This file is that class for the tables `vidscreen select
--export-vlmevalkit NAME.tsv` writes. Install it once, without writing Python:

    cp vidscreen_vlmeval.py VLMEvalKit/vlmeval/dataset/
    echo 'from .vidscreen_vlmeval import VidscreenVideoMCQ, register; register(DATASET_CLASSES)' \
        >> VLMEvalKit/vlmeval/dataset/__init__.py

then put each release's table in LMUData (the LMUData environment variable,
else ~/LMUData) and its videos under VIDSCREEN_VIDEO_ROOT (else
LMUData/videos/NAME), at the table's video_path:

    cp rel/NAME.tsv ~/LMUData/
    python run.py --data NAME --model Qwen2-VL-7B-Instruct

Frames: 32 uniform frames of each clip (a --video-llm model gets the file);
for another count, name a variant: --data NAME_16 --data-config
'{"NAME_16": {"class": "VidscreenVideoMCQ", "dataset": "NAME", "nframe": 16}}'.

Every LMUData table whose header is vidscreen's columns is a dataset named
after its file. Scoring is by exact letter, no judge model: the reply's
letter, "(B)", "B." or "Answer: B", else the one option whose text the reply
quotes; a reply naming no option is wrong. Accuracy is reported overall and
per task_type and category.
"""

import ast
import os
import os.path as osp
import re

from vlmeval.smp import LMUDataRoot, dump, load
from vlmeval.smp.file import get_intermediate_file_path

from .video_base import VideoBaseDataset

# The columns vidscreen writes (harness/release/export/vlmevalkit.go,
# VLMEvalKitColumns); a table is vidscreen's when its header is these.
COLUMNS = ['index', 'question_id', 'video', 'video_path', 'question', 'candidates', 'answer',
           'task_type', 'category', 'duration']


def parse_letter(reply, n):
    """Return the 0-based option a reply names among n options, or -1.

    A letter on its own ("B", "(B)", "B.", "B)", "Answer: B"), first one
    first; lower-case letters count only in "(b)" or "answer: b" form so
    that the word "a" is not read as option A.
    """
    if reply is None:
        return -1
    text = str(reply).strip()
    letters = ''.join(chr(ord('A') + i) for i in range(n))
    m = re.search(r'(?i)answer\s*(?:is)?\s*[:：]?\s*\(?([%s])\)?(?![A-Za-z])' % letters, text)
    if m:
        return letters.index(m.group(1).upper())
    m = re.search(r'\(([%s])\)' % (letters + letters.lower()), text)
    if m:
        return letters.index(m.group(1).upper())
    m = re.search(r'(?<![A-Za-z])([%s])(?![A-Za-z])' % letters, text)
    if m:
        return letters.index(m.group(1))
    return -1


def parse_reply(reply, options):
    """Return the 0-based option a reply names: its letter, else the only option it quotes."""
    k = parse_letter(reply, len(options))
    if k >= 0 or reply is None:
        return k
    low = str(reply).lower()
    quoted = [i for i, o in enumerate(options) if str(o).strip() and str(o).strip().lower() in low]
    return quoted[0] if len(quoted) == 1 else -1


def vidscreen_tables():
    """The names of the LMUData tables vidscreen wrote, sorted."""
    root = LMUDataRoot()
    names = []
    if not osp.isdir(root):
        return names
    for f in sorted(os.listdir(root)):
        if not f.endswith('.tsv'):
            continue
        try:
            with open(osp.join(root, f), encoding='utf-8') as fh:
                head = fh.readline().rstrip('\r\n').split('\t')
        except OSError:
            continue
        if head == COLUMNS:
            names.append(f[:-len('.tsv')])
    return names


class VidscreenVideoMCQ(VideoBaseDataset):
    """A vidscreen release: LMUData/NAME.tsv and its videos."""

    TYPE = 'Video-MCQ'
    MODALITY = 'VIDEO'
    PROMPT = ('Watch the video and answer the multiple-choice question. '
              'Reply with the letter of the correct option only.')

    # 32 uniform frames unless --data-config sets nframe or fps: the
    # papers' reference protocol (Video-Index 5.1, 32 frames).
    def __init__(self, dataset, nframe=32, fps=-1):
        if fps > 0:
            nframe = 0
        super().__init__(dataset=dataset, nframe=nframe, fps=fps)

    @classmethod
    def supported_datasets(cls):
        return vidscreen_tables()

    def prepare_dataset(self, dataset):
        data_file = osp.join(LMUDataRoot(), dataset + '.tsv')
        if not osp.exists(data_file):
            raise FileNotFoundError(f'{data_file}: no vidscreen table named {dataset}')
        root = os.environ.get('VIDSCREEN_VIDEO_ROOT') or osp.join(LMUDataRoot(), 'videos', dataset)
        return dict(root=root, data_file=data_file)

    def video_file(self, line):
        path = line['video_path'] if isinstance(line['video_path'], str) and line['video_path'] else line['video']
        full = osp.join(self.data_root, str(path))
        if not osp.exists(full):
            raise FileNotFoundError(f'item {line["question_id"]}: video {full} not found '
                                    '(set VIDSCREEN_VIDEO_ROOT to the videos the release names)')
        return full

    def frames(self, line):
        """Save nframe uniform frames (or fps frames a second) of the item's video; return their paths."""
        import decord
        from PIL import Image
        video = self.video_file(line)
        vid = decord.VideoReader(video)
        total = len(vid)
        if self.fps > 0:
            step = vid.get_avg_fps() / self.fps
            indices = [int(i * step) for i in range(int(total / step))]
            paths = self.frame_paths_fps(str(line['question_id']), len(indices))
        else:
            seg = total / self.nframe
            indices = [min(total - 1, int(seg * i + seg / 2)) for i in range(self.nframe)]
            paths = self.frame_paths(str(line['question_id']))
        if not all(osp.exists(p) for p in paths):
            for i, p in zip(indices, paths):
                Image.fromarray(vid[i].asnumpy()).save(p)
        return paths

    def build_prompt(self, line, video_llm):
        if isinstance(line, int):
            line = self.data.iloc[line]
        options = ast.literal_eval(line['candidates'])
        text = 'Question: ' + str(line['question']) + '\nOptions:\n'
        text += '\n'.join(f'({chr(ord("A") + i)}) {o}' for i, o in enumerate(options))
        message = [dict(type='text', value=self.PROMPT, role='system')]
        if video_llm or not self.split_frame:
            message.append(dict(type='video', value=self.video_file(line)))
        else:
            message.extend(dict(type='image', value=p) for p in self.frames(line))
        message.append(dict(type='text', value=text + '\nAnswer with the option\'s letter.'))
        return message

    @classmethod
    def evaluate(cls, eval_file, **judge_kwargs):
        data = load(eval_file)
        correct = []
        for _, row in data.iterrows():
            options = ast.literal_eval(row['candidates'])
            k = parse_reply(row.get('prediction'), options)
            correct.append(int(k >= 0 and chr(ord('A') + k) == str(row['answer']).strip()))
        data['score'] = correct
        dump(data, get_intermediate_file_path(eval_file, '_score'))
        rating = {'overall': {'n': len(correct), 'accuracy': sum(correct) / max(len(correct), 1)}}
        for col in ('task_type', 'category'):
            for name, group in data.groupby(data[col].fillna('')):
                rating[f'{col}={name}'] = {'n': len(group), 'accuracy': float(group['score'].mean())}
        dump(rating, get_intermediate_file_path(eval_file, '_rating', 'json'))
        return rating


def register(dataset_classes):
    """Add the class to VLMEvalKit's list (its __init__.py calls this once)."""
    if VidscreenVideoMCQ not in dataset_classes:
        dataset_classes.append(VidscreenVideoMCQ)
    return VidscreenVideoMCQ
