@server @embeddings @requires.pooling
Feature: Embeddings
  With --embedding and a pooling type other than none, the server embeds text on native /embedding and
  /embeddings and on OpenAI /v1/embeddings: one vector per input, listed in input order, as long as the
  model's embedding size. OpenAI vectors are L2-normalised; the same input always gives the same vector.

  Background: An embedding server with mean pooling and one slot
    Given a server listening on localhost:8080
    And   a model file default
    And   a model alias smollm2
    And   1 slots
    And   512 KV cache size
    And   embeddings extraction
    And   the server option --pooling set to mean
    Then  the server is starting

  Scenario Outline: One string gives one normalised vector through <route>
    When "What is the capital of Bulgaria ?" is embedded through <route>
    Then one embedding is returned per input, in input order
    And  every embedding has the model's embedding size
    And  every embedding is non-zero
    And  every embedding is L2-normalised

    Examples:
      | route                                          |
      | the openai client                              |
      | the openai client with encoding_format float   |
      | the openai client with encoding_format base64  |
      | POST /v1/embeddings                            |
      | POST /v1/embeddings with encoding_format base64 |
      | POST /embedding                                |
      | POST /embeddings                               |

  Scenario Outline: A batch gives one vector per input, in input order, through <route>
    When these inputs are embedded through <route>:
      | input                               | as     |
      | In which country is Paris located ? | text   |
      | Is Madrid the capital of Spain ?    | text   |
      | In which country is Paris located ? | text   |
      | In which country is Paris located ? | tokens |
    Then one embedding is returned per input, in input order
    And  every embedding has the model's embedding size
    And  every embedding is L2-normalised
    And  embeddings 0 and 2 are identical
    And  embeddings 0 and 3 are identical
    And  embeddings 0 and 1 are different
    And  each embedding equals its input embedded alone

    Examples:
      | route                                          |
      | the openai client with encoding_format float   |
      | the openai client with encoding_format base64  |
      | POST /v1/embeddings                            |
      | POST /embedding                                |

  Scenario: The OpenAI answer counts the prompt tokens and names the served model
    When these inputs are embedded through POST /v1/embeddings:
      | input                            | as     |
      | What is the capital of France ?  | text   |
      | The capital of France is Paris.  | tokens |
    Then one embedding is returned per input, in input order
    And  the embeddings usage counts the prompt tokens of every input
    And  the embeddings response names the model smollm2

  Scenario: The openai client sees the served model and the usage
    Given a model smollm2
    When "What is the capital of France ?" is embedded through the openai client
    Then the embeddings usage counts the prompt tokens of every input
    And  the embeddings response names the model smollm2

  Scenario: One token array is one input
    When the tokens of "What is the capital of France ?" are embedded through the openai client with encoding_format float
    Then one embedding is returned per input, in input order
    And  every embedding has the model's embedding size
    And  every embedding is L2-normalised
    And  the embeddings usage counts the prompt tokens of every input

  Scenario Outline: An empty or missing input is refused with 400 on <path>
    When a POST request to <path> with JSON <body>
    Then the response status is 400
    And  the response field error.type is invalid_request_error

    Examples:
      | path           | body              |
      | /v1/embeddings | {"input": []}     |
      | /v1/embeddings | {}                |

  # An empty string is empty only for a model that adds no BOS token: with BOS it is one token, embedded.
  Scenario Outline: An empty string is refused with 400 on <path>
    Given the model adds no BOS token
    When a POST request to <path> with JSON <body>
    Then the response status is 400
    And  the response field error.type is invalid_request_error

    Examples:
      | path           | body              |
      | /v1/embeddings | {"input": ""}     |
      | /embedding     | {"content": ""}   |

  Scenario: The phrases of the original suite
    When embeddings are computed for:
      """
      What is the capital of Bulgaria ?
      """
    Then embeddings are generated
    And  every embedding has the model's embedding size
    Given a model smollm2
    When an OAI compatible embeddings computation request for:
      """
      What is the capital of Spain ?
      """
    Then embeddings are generated
    Given a prompt:
      """
      In which country Paris is located ?
      """
    And a prompt:
      """
      Is Madrid the capital of Spain ?
      """
    When an OAI compatible embeddings computation request for multiple inputs
    Then embeddings are generated
    And  every embedding is L2-normalised
