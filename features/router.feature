@router @requires.models_dir @fresh_server
Feature: Router mode: several models behind one server
  Started without a model, llama-server is a router: it lists the models of --models-dir (or of a
  --models-preset INI file) with their status, starts one child server per model on demand or on
  POST /models/load, forwards each request to the instance of the model the request names, and stops
  instances on POST /models/unload or, with --models-max N, to make room (least recently used first,
  never one that is busy). --no-models-autoload leaves loading to /models/load alone. The router's routes
  are protected by --api-key like a single-model server's; /health stays public.
  Here the models are the default model under several names (a second model may stand in for all but
  the first: LLAMA_BDD_ROUTER_SECOND_MODEL).

  Background: A router over two models, one small slot each
    Given a server listening on localhost:8080
    And   a router over a models directory holding alpha and beta
    And   1 slots
    And   256 KV cache size

  Scenario: Both listings name every model of the directory, none loaded yet
    Then  the server is starting
    And   the router lists alpha and beta through /models, each unloaded
    And   the router lists alpha and beta through /v1/models, each unloaded
    And   the router's /props describe a router of at most 4 models with autoload on

  Scenario: A model goes loading, loaded on /models/load and unloaded on /models/unload
    Then  the server is starting
    When  the router loads model alpha
    Then  the router shows model alpha going loading, loaded
    And   the router lists model beta as unloaded
    When  the router unloads model alpha
    Then  the router shows model alpha unloaded within 30 seconds
    And   the router lists alpha and beta through /models, each unloaded

  # The README calls every status event of /models/sse "model_status"; b11434 names the first event of a
  # load "model_status" and the others "status_change". The scenario follows the server: both are status
  # events. A load reports loading (with its progress), then loaded with the model's info; an unload,
  # unloaded with the instance's exit code.
  Scenario: /models/sse reports a model's statuses as it loads and unloads
    Then  the server is starting
    When  the router's events are watched
    And   the router loads model alpha
    Then  the router shows model alpha loaded within 120 seconds
    When  the router unloads model alpha
    Then  the router shows model alpha unloaded within 30 seconds
    And   the router's events show model alpha going loading, loaded, unloaded
    And   the router's events report no model but alpha

  # /models/load of an unknown model answers the generic 404 of an unknown route ("File Not Found"): the
  # router's own message ("model is not found") is replaced by the HTTP layer's 404 handler. The type holds.
  Scenario: Loading a model twice, unloading one that does not run and loading an unknown one are refused
    Then  the server is starting
    When  the router loads model alpha
    Then  the router shows model alpha loaded within 120 seconds
    When  a POST request to /models/load with JSON {"model": "alpha"}
    Then  the request is rejected with 400 invalid_request_error saying "already running"
    When  a POST request to /models/unload with JSON {"model": "beta"}
    Then  the request is rejected with 400 invalid_request_error saying "not running"
    When  a POST request to /models/load with JSON {"model": "gamma"}
    Then  the request is rejected with 404 not_found_error
    And   the router lists model alpha as loaded

  Scenario Outline: A chat naming a model is answered by that model, loaded on demand: <model>
    Then  the server is starting
    Given a model <model>
    And   a user prompt Say hello
    And   4 max tokens to predict
    When  a chat completion is requested from /v1/chat/completions with the openai client
    Then  the completion names the model <model>
    And   the usage counts 4 completion tokens
    And   the router lists model <model> as loaded

    Examples:
      | model |
      | alpha |
      | beta  |

  Scenario: A chat naming an unknown model, or none, is refused and the router keeps serving
    Then  the server is starting
    Given a model gamma
    And   a user prompt Say hello
    When  the queued prompt is posted to /v1/chat/completions as a chat message
    Then  the request is rejected with 400 invalid_request_error saying "not found"
    When  a POST request to /v1/chat/completions with JSON {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2}
    Then  the request is rejected with 400 invalid_request_error saying "model name is missing"
    And   the router lists alpha and beta through /models, each unloaded

  Scenario: A request for a model that is still loading waits for it, then is answered
    Then  the server is starting
    When  the router loads model beta
    Then  the router lists model beta as loading
    Given a model beta
    And   a user prompt Say hello
    And   2 max tokens to predict
    When  a chat completion is requested from /v1/chat/completions with the openai client
    Then  the completion names the model beta
    And   the router lists model beta as loaded

  @requires.models_max
  Scenario: With room for one model, asking for the other evicts the one that is loaded
    Given the router runs at most 1 model at a time
    Then  the server is starting
    And   the router's /props describe a router of at most 1 models with autoload on
    When  the router loads model alpha
    Then  the router shows model alpha loaded within 120 seconds
    Given a model beta
    And   a user prompt Say hello
    And   2 max tokens to predict
    When  a chat completion is requested from /v1/chat/completions with the openai client
    Then  the completion names the model beta
    And   the router lists model beta as loaded
    And   the router lists model alpha as unloaded

  @requires.models_max
  Scenario: With room for one model, a busy model is not evicted: the other model's request waits for it
    Given the router runs at most 1 model at a time
    Then  the server is starting
    When  the router loads model alpha
    Then  the router shows model alpha loaded within 120 seconds
    Given the request field ignore_eos is true
    And   16 max tokens to predict
    And   a user prompt Count from one to one hundred.
    When  the queued prompt is sent to model alpha in the background
    Then  the router is seen busy with model alpha
    Given 2 max tokens to predict
    And   a user prompt Say hello
    When  the queued prompt is sent to model beta in the background
    Then  every background chat was answered by its model, in full
    And   the router lists model beta as loaded
    And   the router lists model alpha as unloaded

  @requires.models_max
  Scenario: With room for two models, the least recently used one makes room for a third
    Given a router over a models directory holding alpha, beta and gamma
    And   the router runs at most 2 models at a time
    Then  the server is starting
    Given 1 max tokens to predict
    And   a model alpha
    And   a user prompt Hi
    When  a chat completion is requested from /v1/chat/completions with the openai client
    Given a model beta
    And   a user prompt Hi
    When  a chat completion is requested from /v1/chat/completions with the openai client
    Given a model alpha
    And   a user prompt Hi
    When  a chat completion is requested from /v1/chat/completions with the openai client
    Given a model gamma
    And   a user prompt Hi
    When  a chat completion is requested from /v1/chat/completions with the openai client
    Then  the completion names the model gamma
    And   the router lists model beta as unloaded
    And   the router lists model alpha as loaded
    And   the router lists model gamma as loaded

  @requires.models_autoload
  Scenario: Without autoload, a request for a model that is not loaded is refused until it is loaded
    Given the router loads no model on demand
    Then  the server is starting
    And   the router's /props describe a router of at most 4 models with autoload off
    Given a model alpha
    And   a user prompt Say hello
    And   2 max tokens to predict
    When  the queued prompt is posted to /v1/chat/completions as a chat message
    Then  the request is rejected with 400 invalid_request_error saying "not loaded"
    And   the router lists model alpha as unloaded
    When  the router loads model alpha
    Then  the router shows model alpha loaded within 120 seconds
    Given a user prompt Say hello
    When  a chat completion is requested from /v1/chat/completions with the openai client
    Then  the completion names the model alpha

  # With autoload off, a request for a model that /models/load is still loading is not held until the
  # model is up (as it is with autoload on): the router forwards it at once to an instance that does not
  # listen yet and answers 500 "proxy error: Could not establish connection" in plain text.
  @known_bug @requires.models_autoload
  Scenario: Without autoload, a request for a model that is still loading waits for it
    Given the router loads no model on demand
    Then  the server is starting
    When  the router loads model beta
    Then  the router lists model beta as loading
    Given a model beta
    And   a user prompt Say hello
    And   2 max tokens to predict
    When  a chat completion is requested from /v1/chat/completions with the openai client
    Then  the completion names the model beta

  # A preset's options give way to the router's own command line (here --ctx-size), so the option shown
  # to take effect is one the router is not started with: n-predict.
  @requires.models_preset
  Scenario: A models preset adds models, with options of their own
    Given a router over a models preset:
      """
      [tiny_answers]
      model = {default_model}
      n-predict = 3
      """
    Then  the server is starting
    And   the router lists alpha, beta and tiny_answers through /models, each unloaded
    When  the router loads model tiny_answers
    Then  the router shows model tiny_answers going loading, loaded
    Given a model tiny_answers
    And   a user prompt Count from one to one hundred.
    And   the request field ignore_eos is true
    When  a chat completion is requested from /v1/chat/completions with the openai client
    Then  the completion names the model tiny_answers
    And   the usage counts 3 completion tokens

  @requires.api_key
  Scenario: An API key protects the router's routes, /health stays public
    Given a server api key router-secret
    Then  the server is starting
    When  these endpoints are called with no key:
      | method | path                 | body                                                                                 |
      | GET    | /models              |                                                                                      |
      | GET    | /v1/models           |                                                                                      |
      | GET    | /props               |                                                                                      |
      | POST   | /models/load         | {"model": "alpha"}                                                                   |
      | POST   | /models/unload       | {"model": "alpha"}                                                                   |
      | POST   | /v1/chat/completions | {"model": "alpha", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1} |
    Then  every endpoint answers 401 authentication_error
    Given a user api key router-secret
    Then  the router lists model alpha as unloaded
    When  these endpoints are called with the key router-secret:
      | method | path                 | body                                                                                 |
      | GET    | /models              |                                                                                      |
      | GET    | /v1/models           |                                                                                      |
      | GET    | /props               |                                                                                      |
      | POST   | /models/load         | {"model": "alpha"}                                                                   |
      | POST   | /v1/chat/completions | {"model": "alpha", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1} |
    Then  every endpoint answers 200 without an error
    When  these endpoints are called with no key:
      | method | path       |
      | GET    | /health    |
      | GET    | /v1/health |
    Then  every endpoint answers 200 without an error
