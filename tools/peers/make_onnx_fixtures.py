#!/usr/bin/env python3
"""Makes the ONNX fixtures of the importer's tests (run once, outside CI;
needs torch, torchvision, transformers, onnx, onnxscript and onnxruntime):

  test/Import/Inputs/       a small MLP with a symbolic batch, its input,
                            and a model with an op Kiln does not map
  unittests/Import/Inputs/  small models exported by PyTorch with both of
                            its exporters (torchscript: opset 17;
                            dynamo: the default one, opset 18), each with
                            a symbolic batch:
      resnet18      ResNet-18's layout (basic blocks [2, 2, 2, 2]) with
                    narrow channels, 3x32x32 inputs
      mobilenet     depthwise-separable blocks with ReLU6
      gpt2          transformers' GPT-2, 2 layers, d 32 (dynamo only: the
                    TorchScript exporter cannot export transformers 5)
      llama         transformers' Llama, 2 layers, d 32, 4 query and 2
                    key/value heads (dynamo only)
      lstm          a 2-layer LSTM and a linear head
    with <name>.<exporter>.onnx, <name>.input_<b>.npy for two batch sizes
    and onnxruntime's outputs <name>.<exporter>.output_<b>.npy.

usage: make_onnx_fixtures.py [REPO_ROOT]
"""

import os
import sys

import numpy as np
import onnx
import onnx.helper as oh
import onnxruntime as ort
import torch
import torch.nn as nn
import transformers

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..")
LIT = os.path.join(ROOT, "test", "Import", "Inputs")
UNIT = os.path.join(ROOT, "unittests", "Import", "Inputs")


def lit_fixtures():
    os.makedirs(LIT, exist_ok=True)
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((3, 4)).astype(np.float32)
    b1 = rng.standard_normal((4,)).astype(np.float32)
    w2 = rng.standard_normal((4, 2)).astype(np.float32)
    x = oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 3])
    y = oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N", 2])
    g = oh.make_graph(
        [oh.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="gemm"),
         oh.make_node("Relu", ["h"], ["r"], name="relu"),
         oh.make_node("MatMul", ["r", "w2"], ["z"], name="matmul"),
         oh.make_node("Softmax", ["z"], ["y"], axis=1, name="softmax")],
        "mlp", [x], [y],
        [onnx.numpy_helper.from_array(w1, "w1"),
         onnx.numpy_helper.from_array(b1, "b1"),
         onnx.numpy_helper.from_array(w2, "w2")])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(LIT, "mlp.onnx"))
    xs = rng.standard_normal((5, 3)).astype(np.float32)
    np.save(os.path.join(LIT, "mlp-x.npy"), xs)
    out = ort.InferenceSession(os.path.join(LIT, "mlp.onnx")).run(
        None, {"x": xs})[0]
    np.save(os.path.join(LIT, "mlp-y.npy"), out)

    g = oh.make_graph(
        [oh.make_node("Frobnicate", ["x"], ["y"], name="frob")], "unknown",
        [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])],
        [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 18)])
    m.ir_version = 9
    onnx.save(m, os.path.join(LIT, "unknown-op.onnx"))


class Basic(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return torch.relu(y + (self.down(x) if self.down else x))


class ResNet18(nn.Module):
    def __init__(self, widths=(4, 8, 16, 32), classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 7, 2, 3, bias=False),
                                  nn.BatchNorm2d(widths[0]), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        blocks, cin = [], widths[0]
        for i, w in enumerate(widths):
            for j in range(2):
                blocks.append(Basic(cin, w, 2 if (j == 0 and i > 0) else 1))
                cin = w
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class MobileNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        layers = [nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8),
                  nn.ReLU6()]
        cin = 8
        for cout, stride in [(16, 1), (16, 2), (32, 1), (32, 2)]:
            layers += [nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False),
                       nn.BatchNorm2d(cin), nn.ReLU6(),
                       nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout),
                       nn.ReLU6()]
            cin = cout
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(self.features(x).mean((2, 3)))


class LSTMNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y)


class Logits(nn.Module):
    """A transformers model returning its logits alone."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(input_ids=ids, use_cache=False).logits


def randomize_batchnorm(model, rng):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            m.running_mean.copy_(torch.tensor(rng.normal(0, 0.1, c)))
            m.running_var.copy_(torch.tensor(rng.uniform(0.5, 1.5, c)))
            m.weight.data.copy_(torch.tensor(rng.uniform(0.5, 1.5, c)))
            m.bias.data.copy_(torch.tensor(rng.normal(0, 0.1, c)))


def strip_metadata(m):
    """Drops the exporter's per-node notes (stack traces naming this
    machine's paths, FX node dumps): the fixtures keep only the model."""
    def graphs(g):
        yield g
        for n in g.node:
            for a in n.attribute:
                if a.g is not None and a.HasField("g"):
                    yield from graphs(a.g)
                for sub in a.graphs:
                    yield from graphs(sub)
    for g in graphs(m.graph):
        for n in g.node:
            del n.metadata_props[:]
    for f in m.functions:
        for n in f.node:
            del n.metadata_props[:]
    del m.metadata_props[:]


def export(name, model, inputs, exporters):
    model.eval()
    os.makedirs(UNIT, exist_ok=True)
    for b, x in enumerate(inputs):
        np.save(os.path.join(UNIT, "%s.input_%d.npy" % (name, b)), x)
    for exporter in exporters:
        path = os.path.join(UNIT, "%s.%s.onnx" % (name, exporter))
        example = torch.from_numpy(inputs[0])
        if exporter == "torchscript":
            torch.onnx.export(model, (example,), path, dynamo=False,
                              opset_version=17, input_names=["input"],
                              output_names=["output"],
                              dynamic_axes={"input": {0: "batch"},
                                            "output": {0: "batch"}})
        else:
            batch = torch.export.Dim("batch", min=1, max=64)
            program = torch.onnx.export(model, (example,), dynamo=True,
                                        dynamic_shapes=({0: batch},),
                                        input_names=["input"],
                                        output_names=["output"])
            program.save(path)
        # One file: weights inline, so the fixture is self-contained.
        m = onnx.load(path)
        strip_metadata(m)
        onnx.save(m, path)
        for leftover in os.listdir(UNIT):
            if leftover.endswith(".data"):
                os.remove(os.path.join(UNIT, leftover))
        session = ort.InferenceSession(path)
        for b, x in enumerate(inputs):
            out = session.run(None, {session.get_inputs()[0].name: x})[0]
            np.save(os.path.join(UNIT, "%s.%s.output_%d.npy" %
                                 (name, exporter, b)), out)
        print(name, exporter, "opset",
              [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")],
              "ir", m.ir_version, os.path.getsize(path), "bytes")


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    lit_fixtures()
    both = ["torchscript", "dynamo"]
    with torch.no_grad():
        images = [rng.standard_normal((b, 3, 32, 32)).astype(np.float32)
                  for b in (2, 3)]
        resnet = ResNet18()
        randomize_batchnorm(resnet, rng)
        export("resnet18", resnet, images, both)
        mobile = MobileNet()
        randomize_batchnorm(mobile, rng)
        export("mobilenet", mobile, images, both)
        seqs = [rng.standard_normal((b, 5, 8)).astype(np.float32)
                for b in (2, 3)]
        export("lstm", LSTMNet(), seqs, both)
        ids = [rng.integers(0, 100, (b, 7), dtype=np.int64) for b in (2, 3)]
        gpt2 = transformers.GPT2LMHeadModel(transformers.GPT2Config(
            vocab_size=100, n_positions=32, n_embd=32, n_layer=2, n_head=2,
            attn_implementation="eager"))
        export("gpt2", Logits(gpt2), ids, ["dynamo"])
        llama = transformers.LlamaForCausalLM(transformers.LlamaConfig(
            vocab_size=100, hidden_size=32, intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            max_position_embeddings=32, attn_implementation="eager"))
        export("llama", Logits(llama), ids, ["dynamo"])


if __name__ == "__main__":
    main()
