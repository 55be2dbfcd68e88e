# Final-era phrases: /infill. The original served stories260K-infill (HF ggml-org/models), skipped when
# absent. The default model SmolLM2 has no FIM tokens: today's server refuses /infill on it with 501
# not_supported_error ("Infill is not supported by this model: prefix token is missing. ..."), so the
# scenario on it checks that refusal.
@llama.cpp
@infill
Feature: llama.cpp server infill

  Scenario: Infill with input_extra (stories260K-infill)
    Given a server listening on localhost:8080
    And   a model file tinyllamas/stories260K-infill.gguf from HF repo ggml-org/models
    And   a model file test-model-infill.gguf
    And   a model alias tinyllama-infill
    And   42 as server seed
    And   1024 as batch size
    And   1024 as ubatch size
    And   2048 KV cache size
    And   64 max tokens to predict
    And   0.0 temperature
    Then  the server is starting
    Then  the server is healthy
    Given a prompt "Complete this"
    And   an infill input extra llama.h "LLAMA_API int32_t llama_n_threads();\n"
    And   an infill input prefix "#include <cstdio>\n#include \"llama.h\"\n\nint main() {\n    int n_threads = llama_"
    And   an infill input suffix "}\n"
    And   an infill request with no api error
    Then  64 tokens are predicted

  Scenario Outline: Infill on a model without FIM tokens
    Given a server listening on localhost:8080
    And   a model file default
    And   2048 KV cache size
    And   16 max tokens to predict
    And   0.0 temperature
    Then  the server is starting
    Given a prompt Complete this
    And   an infill input extra <filename> <text>
    And   an infill input prefix #include <cstdio>\nint main() {\n    int n_threads = llama_
    And   an infill input suffix }\n
    And   an infill request with <api_error> api error

    @model.smollm2-135m
    Examples: SmolLM2-135M has no FIM tokens
      | filename | text                                     | api_error |
      | none     | none                                     | 501       |
      | llama.h  | LLAMA_API int32_t llama_n_threads();\n   | raised    |
